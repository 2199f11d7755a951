from .devserver import main

main()

"""Docker-free local runtime: the SAM templates, run on moto, in one process.

``cfn`` reads templates (with CloudFormation tags) and resolves intrinsics,
``stack`` loads the root template and its nested service stacks, ``provision``
creates their resources in the emulator, ``invoke`` turns requests into API
Gateway HTTP API (payload 2.0) events and calls the real handlers in-process.
"""

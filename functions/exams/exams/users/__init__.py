"""Users: identity accounts (Cognito), profiles and roles."""

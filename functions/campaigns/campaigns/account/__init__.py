"""The account's own settings (``GET``/``PUT /account``): today its postal address, which every
campaign and bulk mail prints in its footer (CAN-SPAM; issue 30)."""

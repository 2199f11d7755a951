"""Plans, subscriptions, subscription requests, pay-per-test packages and the billing guards."""

"""Service-wide controls every request passes (read by the middleware of ``exams.http``): the
platform settings item (maintenance mode, announcement banner, registration switch) and the
rate-limit counters. The super admin changes the settings through ``exams.admin``."""

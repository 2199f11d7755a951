"""The super admin's routes: platform settings (the item itself lives in ``exams.controls``) and the audit-log listing."""

"""Online examination service. One package per domain; each handler module is one Lambda."""
VERSION = "1.0.0"
SERVICE = "exams"
NAME = "Online Examination Service"

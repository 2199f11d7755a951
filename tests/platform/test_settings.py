import pytest
from pydantic import ValidationError

from lambdakit.settings import ServiceSettings, SettingsConfigDict, get_settings, reset_settings


class DemoSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="DEMO_", extra="ignore", frozen=True)

    table_name: str = "t"
    batch: int = 10
    enabled: bool = False
    origins: list[str] = []


def test_reads_prefixed_env_case_insensitively(monkeypatch):
    monkeypatch.setenv("DEMO_TABLE_NAME", "real")
    monkeypatch.setenv("demo_batch", "25")
    monkeypatch.setenv("DEMO_ENABLED", "true")
    monkeypatch.setenv("DEMO_ORIGINS", '["https://a.example"]')
    monkeypatch.setenv("DEMO_STAGE", "prod")
    monkeypatch.setenv("TABLE_NAME", "unprefixed-is-ignored")
    s = DemoSettings()
    assert (s.table_name, s.batch, s.enabled, s.origins, s.stage) == ("real", 25, True, ["https://a.example"], "prod")
    assert not s.is_local


def test_defaults_kwargs_and_frozen(monkeypatch):
    monkeypatch.delenv("DEMO_TABLE_NAME", raising=False)
    monkeypatch.setenv("DEMO_STAGE", "local")
    s = DemoSettings(batch=3)
    assert s.table_name == "t" and s.batch == 3 and s.is_local
    with pytest.raises(ValidationError):
        s.batch = 4


def test_bad_value_is_a_validation_error(monkeypatch):
    monkeypatch.setenv("DEMO_STAGE", "local")
    monkeypatch.setenv("DEMO_BATCH", "many")
    with pytest.raises(ValidationError):
        DemoSettings()


def test_get_settings_caches_until_reset(monkeypatch):
    monkeypatch.setenv("DEMO_STAGE", "local")
    monkeypatch.setenv("DEMO_BATCH", "1")
    reset_settings()
    a = get_settings(DemoSettings)
    monkeypatch.setenv("DEMO_BATCH", "2")
    assert get_settings(DemoSettings) is a and a.batch == 1
    reset_settings()
    assert get_settings(DemoSettings).batch == 2


def test_service_settings_classes_load(app):
    from campaigns.settings import settings as cs
    from exams.settings import settings as es
    from internships.settings import settings as ins

    assert cs().table_name == app.envs["campaigns"].refs["CampaignsTable"]
    assert es().stage == "local" and ins().payment_provider == "sandbox"

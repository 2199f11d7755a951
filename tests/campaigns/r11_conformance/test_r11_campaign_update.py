"""Round 11: ``PUT /campaigns/{id}`` — "Same fields as create; partial update allowed".

A nested object given in part (``{"settings": {"from_name": ...}}``) replaced the stored object
with only the fields given: the other fields of the campaign resource (``settings.from_email``,
``tracking.track_opens``, ...) vanished from the campaign. Fields of ``settings`` and ``tracking``
not given now keep their values (at every depth); ``audience`` and ``schedule``, whose ``type``
decides which fields count, are given whole and stored with their defaults; the detail view
shows every field of the spec's campaign resource."""
from __future__ import annotations

SETTINGS = {"from_email": "news@example.com", "from_name": "News", "reply_to": "help@example.com",
            "send_test": False, "skip_actual_send": True, "provider": None}
TRACKING = {"track_opens": True, "track_clicks": False,
            "utm_params": {"source": "newsletter", "medium": "email", "campaign": "spring"}}


def _create(camp, **body) -> str:
    r = camp.post("/campaigns", json={"name": "Spring", **body})
    assert r.status == 201, r.text
    return r.json()["data"]["id"]


def test_partial_nested_update_keeps_the_other_fields(camp):
    cid = _create(camp, subject="Hi", settings=SETTINGS, tracking=TRACKING,
                  audience={"type": "test", "test_emails": ["a@example.com"]},
                  schedule={"type": "scheduled", "date": "2030-01-01T10:00:00Z"})
    r = camp.put(f"/campaigns/{cid}", json={"settings": {"from_name": "Team"},
                                            "tracking": {"utm_params": {"medium": "social"}}})
    assert r.status == 200, r.text
    for d in (r.json()["data"], camp.get(f"/campaigns/{cid}").json()["data"]):
        assert d["settings"] == {**SETTINGS, "from_name": "Team"}
        assert d["tracking"] == {**TRACKING, "utm_params": {**TRACKING["utm_params"], "medium": "social"}}
        assert d["schedule"] == {"type": "scheduled", "date": "2030-01-01T10:00:00.000Z"}
        assert d["audience"] == {"type": "test", "list_id": None, "segment_id": None, "test_emails": ["a@example.com"]}
        assert d["subject"] == "Hi"
    # an explicit null clears one field; audience and schedule (typed objects) are given whole
    d = camp.put(f"/campaigns/{cid}", json={"settings": {"reply_to": None},
                                            "audience": {"type": "test", "test_emails": ["b@example.com"]},
                                            "schedule": {"type": "scheduled", "date": "2031-02-03T04:05:06Z"}}).json()["data"]
    assert d["settings"] == {**SETTINGS, "from_name": "Team", "reply_to": None}
    assert d["audience"] == {"type": "test", "list_id": None, "segment_id": None, "test_emails": ["b@example.com"]}
    assert d["schedule"] == {"type": "scheduled", "date": "2031-02-03T04:05:06.000Z"}
    d = camp.put(f"/campaigns/{cid}", json={"schedule": {"type": "immediate"}}).json()["data"]
    assert d["schedule"] == {"type": "immediate", "date": None}


def test_nested_object_first_set_by_update_has_every_field(camp):
    cid = _create(camp)
    d = camp.put(f"/campaigns/{cid}", json={"settings": {"from_name": "Team"}, "tracking": {"track_clicks": False}}).json()["data"]
    assert d["settings"] == {"from_email": None, "from_name": "Team", "reply_to": None, "send_test": False,
                             "skip_actual_send": False, "provider": None}
    assert d["tracking"] == {"track_opens": True, "track_clicks": False,
                             "utm_params": {"source": None, "medium": None, "campaign": None}}


def test_defaults_follow_the_models():
    from campaigns.campaign import models
    from campaigns.campaign.service import NESTED_DEFAULTS

    for key, model in (("audience", models.Audience), ("schedule", models.Schedule),
                       ("tracking", models.Tracking), ("settings", models.Settings)):
        assert NESTED_DEFAULTS[key] == model.model_construct().model_dump(mode="json"), key


def test_the_answer_declares_every_field_of_the_nested_request_objects():
    """The detail view's nested models (issue 35: what is not declared is dropped) hold every field
    the request models store, so a field added to a request object is not silently lost."""
    from campaigns.campaign import models, views

    pairs = [(models.Audience, views.AudienceOut), (models.Schedule, views.ScheduleOut),
             (models.Tracking, views.TrackingOut), (models.Utm, views.UtmOut), (models.Settings, views.SettingsOut),
             (models.ProviderConfig, views.ProviderOut), (models.ABTest, views.ABTestOut),
             (models.Variation, views.VariationOut)]
    for request, view in pairs:
        assert set(view.model_fields) == set(request.model_fields), (request.__name__, view.__name__)
    stored = set(models.CampaignBody.model_fields)
    assert stored <= set(views.CampaignStored.model_fields), stored - set(views.CampaignStored.model_fields)


def test_a_concurrent_update_is_merged_not_lost(camp, monkeypatch):
    """Two partial updates race: the one whose write lands second was merged onto what it read,
    which the first one has changed meanwhile. Its write is conditioned on the campaign's edit
    revision, so it is merged again onto the newer campaign: both changes survive (even within one
    millisecond: a counter, not updated_at)."""
    from campaigns.campaign import repository as camp_repo

    cid = _create(camp, subject="Hi", settings=SETTINGS)
    real, raced = camp_repo.update_fields, []

    def racing(*args, **kw):
        if not raced:  # the other update lands between this one's read and its write
            raced.append(kw.get("read_rev"))
            assert camp.put(f"/campaigns/{cid}", json={"settings": {"reply_to": "desk@example.com"}}).status == 200
        return real(*args, **kw)

    monkeypatch.setattr(camp_repo, "update_fields", racing)
    r = camp.put(f"/campaigns/{cid}", json={"settings": {"from_name": "Team"}})
    assert r.status == 200, r.text
    assert raced == [0]
    for d in (r.json()["data"], camp.get(f"/campaigns/{cid}").json()["data"]):
        assert d["settings"]["from_name"] == "Team" and d["settings"]["reply_to"] == "desk@example.com"
        assert d["settings"]["from_email"] == SETTINGS["from_email"]


def test_an_update_that_keeps_losing_the_race_is_a_conflict(camp, monkeypatch):
    """After ``UPDATE_TRIES`` merges that each met a newer campaign: 409 CONFLICT, nothing written."""
    from campaigns.campaign import repository as camp_repo
    from campaigns.campaign import service as camp_service

    cid = _create(camp, subject="Hi", settings=SETTINGS)
    real, tries = camp_repo.update_fields, []

    def always_beaten(*args, **kw):
        tries.append(kw.get("read_rev"))
        camp_repo.table().update(*camp_repo.key(cid), add={"edit_rev": 1})  # another writer, every time
        return real(*args, **kw)

    monkeypatch.setattr(camp_repo, "update_fields", always_beaten)
    r = camp.put(f"/campaigns/{cid}", json={"settings": {"from_name": "Team"}})
    assert r.status == 409 and r.json()["error"]["code"] == "CONFLICT", r.text
    assert tries == [0, 1, 2] and len(tries) == camp_service.UPDATE_TRIES
    assert camp.get(f"/campaigns/{cid}").json()["data"]["settings"]["from_name"] == SETTINGS["from_name"]

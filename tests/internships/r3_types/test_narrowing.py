"""Round-3 typing: one ``store.clean`` for every repository, typed with overloads."""
from __future__ import annotations


def test_clean_strips_key_and_index_attributes_only():
    from internships.store import clean

    item = {"pk": "USER#1", "sk": "PROFILE", "gsi1pk": "USERS", "gsi1sk": "x", "gsi2pk": "ROLE#student",
            "gsi2sk": "y", "gsi3pk": "a", "gsi3sk": "b", "id": "1", "email": "a@example.com", "ttl": 5}
    assert clean(item) == {"id": "1", "email": "a@example.com", "ttl": 5}
    assert clean(None) is None


def test_admin_repositories_use_the_shared_clean():
    from internships import store
    from internships.admin_learning import repository as learning
    from internships.admin_people import repository as people

    assert learning.clean is store.clean and people._clean is store.clean

"""Issue 31 item 6: a newcomer never ends on a 404. Locally the internships ``FrontendUrl`` is the
runtime itself, which serves small readable pages (local_runtime/pages.py). Driven in Chromium:
Google sign-in with the local OpenID provider ends on /dashboard, a refusal on /login?error=...,
the certificate QR URL /verify/CERT-... shows the result, /reset-password calls the API."""
from __future__ import annotations

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

T = 30


def _sign_in_with_google(browser, block: dict, sub: str) -> None:
    browser.get(block["google"]["sign_in_url"])  # 302 → the provider's form
    WebDriverWait(browser, T).until(EC.presence_of_element_located((By.CSS_SELECTOR, "input[name=sub]")))
    assert browser.current_url.startswith(block["google"]["issuer"] + "/")
    field = browser.find_element(By.CSS_SELECTOR, "input[name=sub]")
    field.send_keys(sub)
    field.submit()  # → callback → 302 to the front end
    WebDriverWait(browser, T).until(lambda d: d.current_url.startswith(block["base_url"] + "/")
                                    and "/api/auth/google" not in d.current_url)


def test_google_sign_in_ends_on_a_readable_dashboard(browser, browser_runtime):
    dev, _ = browser_runtime
    block = dev["internships"]
    user = block["google"]["test_user"]
    _sign_in_with_google(browser, block, user["sub"])
    assert browser.current_url == block["base_url"] + "/dashboard"
    assert browser.title == "Dashboard"
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "Signed in as" in text and user["email"] in text
    # the same page with the browser's cookies answers 200 (and without them: readable, not signed in)
    jar = {c["name"]: c["value"] for c in browser.get_cookies()}
    r = requests.get(block["base_url"] + "/dashboard", cookies=jar, timeout=T)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html") and user["email"] in r.text
    anon = requests.get(block["base_url"] + "/dashboard", timeout=T)
    assert anon.status_code == 200 and "not signed in" in anon.text


def test_a_refused_sign_in_ends_on_a_readable_login_page(browser, browser_runtime):
    dev, _ = browser_runtime
    block = dev["internships"]
    _sign_in_with_google(browser, block, block["google"]["unverified_user"])
    assert browser.current_url == block["base_url"] + "/login?error=email_not_verified"
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "Sign-in failed" in text and "has not verified this account's e-mail" in text
    r = requests.get(block["base_url"] + "/login", params={"error": "<script>alert(1)</script>"}, timeout=T)
    assert r.status_code == 200 and "<script>alert" not in r.text and "&lt;script&gt;" in r.text  # escaped


def test_the_certificate_qr_url_shows_the_verification(browser, browser_runtime, demo):
    dev, _ = browser_runtime
    base = dev["internships"]["base_url"]
    cert = demo["internships"]["certificate_id"]
    browser.get(f"{base}/verify/{cert}")
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "Valid certificate" in text and "Asha Verma" in text and cert in text
    assert "Full Stack Web Development" in text
    assert requests.get(f"{base}/verify/{cert}", timeout=T).status_code == 200
    browser.get(f"{base}/verify/CERT-00-NOPE00")
    assert "Not verified" in browser.find_element(By.TAG_NAME, "body").text


def test_reset_password_page_calls_the_api(browser, browser_runtime):
    dev, _ = browser_runtime
    base = dev["internships"]["base_url"]
    browser.get(f"{base}/reset-password?token=not-a-real-token")
    browser.find_element(By.ID, "password").send_keys("N3w-password!")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    out = WebDriverWait(browser, T).until(lambda d: d.find_element(By.ID, "out").text or None)
    assert "err" in browser.find_element(By.ID, "out").get_attribute("class")
    assert out and "Password changed" not in out  # the API's refusal, shown
    assert requests.get(f"{base}/reset-password", timeout=T).status_code == 200

#!/usr/bin/env python3
"""Drives a running Horizon UI (v0.7.0) with headless Chromium and reports, per page, what failed.

Usage: check_horizon.py --horizon http://127.0.0.1:8081 --oap http://127.0.0.1:12800 --out DIR
       [--user admin --password admin] [--chromium /usr/bin/chromium] [--settle 12]
Needs Playwright for Python (no bundled browser: it uses the given Chromium).
For each page it writes DIR/<page>.png and prints: red banners and other role=alert strips,
error toasts and inline error texts, and every /api call answered with a status >= 400 (with the
start of its body). Exit status: 0 when every page loaded, 1 otherwise (failures are reported,
not fatal, because an empty page is a finding, not a crash).
"""
import argparse
import base64
import json
import re
import sys
import urllib.request

from playwright.sync_api import sync_playwright


def gql(oap, query):
    req = urllib.request.Request(oap + "/graphql", data=json.dumps({"query": query}).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=15) as resp:
        return json.load(resp)


def first_id(oap, layer, prefer_names=("productpage", "reviews")):
    """Id of a service of the layer (the busiest-looking name first: productpage, then reviews)."""
    try:
        services = gql(oap, '{ s: listServices(layer: "%s") { id name } }' % layer)["data"]["s"] or []
    except Exception as e:  # noqa: BLE001 - reported, the page is still opened without a pick
        print(f"  listServices({layer}) failed: {e}")
        return None
    for prefer in prefer_names:
        for s in services:
            if s["name"].startswith(prefer):
                return s["id"]
    return services[0]["id"] if services else None


PROBE_JS = """() => {
  const vis = (e) => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length);
  const texts = (sel) => [...document.querySelectorAll(sel)].filter(vis)
      .map(e => e.innerText.trim().replace(/\\s+/g, ' ').slice(0, 240)).filter(t => t);
  const errorish = [...document.querySelectorAll('[class*="error"],[class*="Error"],[class*="empty"],[class*="Empty"]')]
      .filter(vis).map(e => e.innerText.trim().replace(/\\s+/g, ' ').slice(0, 160)).filter(t => t);
  return {
    alerts: texts('[role="alert"]'),
    toasts: texts('.el-message, .el-notification, [class*="toast"]'),
    errorish: [...new Set(errorish)].slice(0, 15),
    nodata: [...document.querySelectorAll('*')].filter(e => vis(e) && e.children.length === 0
        && /^no data$/i.test((e.textContent || '').trim())).length,
    title: document.title,
  };
}"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--horizon", default="http://127.0.0.1:8081")
    ap.add_argument("--oap", default="http://127.0.0.1:12800")
    ap.add_argument("--out", required=True)
    ap.add_argument("--user", default="admin")
    ap.add_argument("--password", default="admin")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--settle", type=float, default=12, help="seconds to let a page's queries finish")
    a = ap.parse_args()

    mesh = first_id(a.oap, "MESH")
    k8s = first_id(a.oap, "K8S_SERVICE")
    dp = first_id(a.oap, "MESH_DP")
    # Envoy's access logs name services <app>.<namespace>; their failed requests are the Logs tab's
    als = first_id(a.oap, "MESH", ("productpage.bookinfo", "reviews.bookinfo"))
    # an edge of each layer's topology for the instance map: productpage -> reviews, reviews -> ratings
    mesh_edge = (first_id(a.oap, "MESH", ("productpage",)), first_id(a.oap, "MESH", ("reviews",)))
    # the server end need not be listed in the layer (Rover sees only some pods' services): build its id
    k8s_edge = (first_id(a.oap, "K8S_SERVICE", ("reviews",)), base64.b64encode(b"ratings.bookinfo").decode() + ".1")
    edge = lambda e: f"&client={e[0]}&server={e[1]}" if all(e) else ""  # noqa: E731
    q = lambda sid: f"?service={sid}" if sid else ""  # noqa: E731
    pages = [
        ("home", "/"),  # Horizon opens the first overview: Sextant's mesh overview
        # layer keys are lower case in Horizon's routes (the topology tab matches them exactly)
        ("mesh-landing", "/layer/mesh/service"),
        ("mesh-service", f"/layer/mesh/service{q(mesh)}"),
        ("mesh-instance", f"/layer/mesh/instance{q(mesh)}"),
        ("mesh-endpoint", f"/layer/mesh/endpoint{q(mesh)}"),
        ("mesh-topology", "/layer/mesh/topology"),
        ("mesh-instance-topology", f"/layer/mesh/topology?view=instance{edge(mesh_edge)}"),
        ("mesh-logs", f"/layer/mesh/logs{q(als)}"),
        ("mesh-dp-landing", "/layer/mesh_dp/instance"),
        ("mesh-dp", f"/layer/mesh_dp/instance{q(dp)}"),
        ("mesh-dp-logs", f"/layer/mesh_dp/logs{q(dp)}"),
        ("k8s-service", f"/layer/k8s_service/service{q(k8s)}"),
        ("k8s-instance", f"/layer/k8s_service/instance{q(k8s)}"),
        ("k8s-endpoint", f"/layer/k8s_service/endpoint{q(k8s)}"),
        ("k8s-topology", "/layer/k8s_service/topology"),
        ("k8s-instance-topology", f"/layer/k8s_service/topology?view=instance{edge(k8s_edge)}"),
        ("mesh-overview", "/overview/mesh"),
        ("alarms", "/alarms"),
    ]

    failed_pages = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=a.chromium, args=["--no-sandbox"], headless=True)
        ctx = browser.new_context(viewport={"width": 1600, "height": 1000})
        r = ctx.request.post(a.horizon + "/api/auth/login", data={"username": a.user, "password": a.password})
        print(f"login {a.user}: HTTP {r.status}")
        if r.status != 200:
            print(r.text()[:300])
            return 1
        page = ctx.new_page()
        bad = []
        oap_errors = set()

        def on_response(resp):
            if "/api/" in resp.url and resp.status < 400 and "json" in (resp.headers.get("content-type") or ""):
                try:  # 200 answers that carry the OAP's complaints (MQE errors, failed batches)
                    for m in re.findall(r'"(?:error|errorReason)":"([^"]{4,200})"', resp.text()):
                        oap_errors.add(f"{resp.url.split(a.horizon)[-1].split('?')[0]}: {m}")
                except Exception:  # noqa: BLE001
                    pass
            if "/api/" in resp.url and resp.status >= 400:
                try:
                    body = resp.text()[:300]
                except Exception:  # noqa: BLE001
                    body = "?"
                bad.append(f"{resp.request.method} {resp.url.split(a.horizon)[-1]} -> {resp.status} {body}")

        page.on("response", on_response)
        console = []
        page.on("console", lambda m: console.append(m.text[:200]) if m.type == "error" else None)
        for name, path in pages:
            bad.clear()
            oap_errors.clear()
            console.clear()
            try:
                page.goto(a.horizon + path, wait_until="domcontentloaded", timeout=30000)
                try:
                    page.wait_for_load_state("networkidle", timeout=a.settle * 1000)
                except Exception:  # noqa: BLE001 - pages poll, networkidle may never come
                    pass
                page.wait_for_timeout(a.settle * 500)
                shot = f"{a.out}/{name}.png"
                page.screenshot(path=shot, full_page=True)
                probe = page.evaluate(PROBE_JS)
            except Exception as e:  # noqa: BLE001
                failed_pages += 1
                print(f"== {name} {path}: FAILED to load: {e}")
                continue
            print(f"== {name} {path} -> {page.url.split(a.horizon)[-1]}  [{shot}]")
            for t in probe["alerts"]:
                print(f"   ALERT: {t}")
            for t in probe["toasts"]:
                print(f"   TOAST: {t}")
            for t in probe["errorish"]:
                print(f"   error/empty text: {t}")
            if probe["nodata"]:
                print(f"   widgets showing 'no data': {probe['nodata']}")
            for e in sorted(oap_errors)[:20]:
                print(f"   error in a 200 answer: {e}")
            for b in bad:
                print(f"   API: {b}")
            for c in console[:8]:
                print(f"   console: {c}")
            if not (probe["alerts"] or probe["toasts"] or bad):
                print("   no banner, toast or failed /api call")
        browser.close()
    return 1 if failed_pages else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Posts one request of every NMWG message type and characteristic to a running nmws (with
a responder on 127.0.0.1) and writes each request and the service's real answer as
Markdown, for docs/protocol.md. Long answers are cut after a number of lines.

usage: capture.py BASE_URL RESPONDER_PORT [DENIED_URL LIMITED_URL] > docs/examples/captured.md

DENIED_URL: a second service started with --nmws.limits.test-clients=192.0.2.0/24 (so this
client may not start tests); LIMITED_URL: a third with
--nmws.limits.tests-per-client-per-minute=1. With them the limit errors are captured too."""
import re
import sys
import urllib.request
import xml.dom.minidom

NS = ('xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" xmlns:nmwgt="http://ggf.org/ns/nmwg/topology/2.0/" '
      'xmlns:select="http://ggf.org/ns/nmwg/ops/select/2.0/"')


def path_request(kind, event_type, params, dst="127.0.0.1"):
    p = "".join(f'<nmwg:parameter name="{k}">{v}</nmwg:parameter>' for k, v in params.items())
    return (f'<nmwg:message {NS} type="{kind}" id="ex1"><nmwg:metadata id="m1"><nmwg:subject id="s1">'
            f'<nmwgt:endPointPair><nmwgt:dst type="ipv4" value="{dst}"/></nmwgt:endPointPair></nmwg:subject>'
            f'<nmwg:eventType>{event_type}</nmwg:eventType><nmwg:parameters id="p1">{p}</nmwg:parameters>'
            f'</nmwg:metadata><nmwg:data id="d1" metadataIdRef="m1"/></nmwg:message>')


def post(base, body):
    req = urllib.request.Request(base + "/nmwg", data=body.encode(), headers={"Content-Type": "application/xml"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return r.read().decode()


def pretty(text, limit):
    try:
        lines = xml.dom.minidom.parseString(text).toprettyxml(indent="  ").splitlines()[1:]
    except Exception:
        lines = text.splitlines()
    lines = [l for l in lines if l.strip()]
    if len(lines) > limit:
        lines = lines[:limit] + [f"  <!-- ... {len(lines) - limit} more lines -->"]
    return "\n".join(lines)


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    base, port = sys.argv[1].rstrip("/"), sys.argv[2]
    cases = [
        ("EchoRequest", f'<nmwg:message {NS} type="EchoRequest" id="e1"><nmwg:metadata id="m1"><nmwg:eventType>'
                        'http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType></nmwg:metadata>'
                        '<nmwg:data id="d1" metadataIdRef="m1"/></nmwg:message>', 20),
        ("MeasurementRequest: path.delay.roundTrip (PingER datums; raw=true adds one ping:datum per frame)",
         path_request("MeasurementRequest", "http://ggf.org/ns/nmwg/tools/ping/2.0/",
                      {"port": port, "count": "5", "interval": "0.01", "raw": "true"}), 70),
        ("MeasurementRequest: path.delay.roundTrip over frame sizes (latency scan)",
         path_request("MeasurementRequest", "path.delay.roundTrip",
                      {"port": port, "count": "20", "packetSizes": "64,512,1472"}), 60),
        ("MeasurementRequest: path.delay.oneWay (owamp summary, iperf datum, nmws figures)",
         path_request("MeasurementRequest", "http://ggf.org/ns/nmwg/tools/owamp/2.0",
                      {"port": port, "count": "200", "packetSize": "200", "interval": "0.0005"}), 60),
        ("MeasurementRequest: path.bandwidth.achievable.TCP (bwctl/iperf eventType, 2 streams)",
         path_request("MeasurementRequest", "http://ggf.org/ns/nmwg/tools/bwctl/2.0",
                      {"port": port, "streams": "2", "timeDuration": "1"}), 50),
        ("MeasurementRequest: path.hoplist (traceroute datums, route in the environment)",
         path_request("MeasurementRequest", "path.hoplist", {"maxTtl": "4", "probesPerHop": "2"}), 45),
        ("MeasurementRequest: path.bandwidth.utilization of an interface",
         f'<nmwg:message {NS} type="MeasurementRequest" id="u1"><nmwg:metadata id="m1"><nmwg:subject id="s1">'
         '<nmwgt:interface><nmwgt:ifName>lo</nmwgt:ifName></nmwgt:interface></nmwg:subject>'
         '<nmwg:eventType>http://ggf.org/ns/nmwg/characteristic/utilization/2.0</nmwg:eventType>'
         '<nmwg:parameters id="p1"><nmwg:parameter name="timeDuration">2</nmwg:parameter></nmwg:parameters>'
         '</nmwg:metadata><nmwg:data id="d1" metadataIdRef="m1"/></nmwg:message>', 40),
        ("MetadataKeyRequest", path_request("MetadataKeyRequest", "http://ggf.org/ns/nmwg/tools/ping/2.0/", {}), 40),
        ("SetupDataRequest with a select chain (consolidated to one-hour buckets)",
         f'<nmwg:message {NS} type="SetupDataRequest" id="sd1"><nmwg:metadata id="m1"><nmwg:subject id="s1">'
         '<nmwgt:endPointPair><nmwgt:dst type="ipv4" value="127.0.0.1"/></nmwgt:endPointPair></nmwg:subject>'
         '<nmwg:eventType>http://ggf.org/ns/nmwg/tools/ping/2.0/</nmwg:eventType></nmwg:metadata>'
         '<nmwg:metadata id="m2"><select:subject id="ss" metadataIdRef="m1"/><select:parameters id="sp">'
         '<nmwg:parameter name="startTime">0</nmwg:parameter>'
         '<nmwg:parameter name="consolidationFunction">average</nmwg:parameter>'
         '<nmwg:parameter name="resolution">3600</nmwg:parameter></select:parameters></nmwg:metadata>'
         '<nmwg:data id="d1" metadataIdRef="m2"/></nmwg:message>', 40),
        ("DataInfoRequest", path_request("DataInfoRequest", "path.delay.roundTrip", {}), 40),
        ("error.common.parse_error (not XML)", "this is not XML", 12),
        ("error.common.parse_error (a DOCTYPE)", '<?xml version="1.0"?><!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                                                 f'<nmwg:message {NS} type="EchoRequest">&x;</nmwg:message>', 12),
        ("error.common.action_not_supported", f'<nmwg:message {NS} type="TeleportRequest" id="t1"/>', 12),
        ("error.common.event_type_not_supported", path_request("MeasurementRequest", "path.colour.favourite", {}), 12),
        ("error.common.structure", f'<nmwg:message {NS} type="SetupDataRequest" id="x1">'
                                   '<nmwg:data id="d1" metadataIdRef="nowhere"/></nmwg:message>', 12),
        ("error.common.subject", f'<nmwg:message {NS} type="MeasurementRequest" id="x2"><nmwg:metadata id="m1">'
                                 '<nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>'
                                 '<nmwg:data id="d1" metadataIdRef="m1"/></nmwg:message>', 12),
        ("error.common.parameter", path_request("MeasurementRequest", "path.delay.roundTrip", {"count": "0"}), 12),
        ("error.mp.measurement (no responder on the port)",
         path_request("MeasurementRequest", "path.delay.roundTrip", {"port": "9"}), 12),
        ("error.ma.query (a key this archive never issued)",
         f'<nmwg:message {NS} type="SetupDataRequest" id="x3"><nmwg:metadata id="m1"><nmwg:key id="k">'
         '<nmwg:parameters id="kp"><nmwg:parameter name="maKey">999999</nmwg:parameter></nmwg:parameters>'
         '</nmwg:key></nmwg:metadata><nmwg:data id="d1" metadataIdRef="m1"/></nmwg:message>', 12),
    ]
    print("<!-- captured by docs/examples/capture.py from a running service; do not edit by hand -->\n")
    for title, body, limit in cases:
        show(title, body, post(base, body), limit)
    if len(sys.argv) > 4:
        denied, limited = sys.argv[3].rstrip("/"), sys.argv[4].rstrip("/")
        test = path_request("MeasurementRequest", "path.delay.roundTrip", {"port": port, "count": "5"})
        show("error.common.authorization (service run with nmws.limits.test-clients=192.0.2.0/24)",
             test, post(denied, test), 12)
        post(limited, test)  # the one test a minute this client may start
        show("error.mp.rate_limited (service run with nmws.limits.tests-per-client-per-minute=1; the second test)",
             test, post(limited, test), 12)


def show(title, body, answer, limit):
    print(f"### {title}\n\nRequest (POST /nmwg, or the same message in a SOAP body):\n\n```xml\n{pretty(body, 40)}\n```\n")
    print(f"Answer:\n\n```xml\n{pretty(answer, limit)}\n```\n")


if __name__ == "__main__":
    main()

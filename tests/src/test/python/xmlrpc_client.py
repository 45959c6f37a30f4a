#!/usr/bin/env python3
"""An independent XML-RPC client: Python's standard xmlrpc.client calls nmws at /RPC2 as the
first NM-WG services were called (NetworkMeasurementRequest with a struct, nmwg.message with
a whole NMWG document, system.listMethods, system.methodHelp) and checks faults for bad
calls. Exits non-zero on the first wrong answer. Run by tests/.../InteropTest.

usage: xmlrpc_client.py BASE_URL DST"""
import sys
import time
import xmlrpc.client


def check(cond, what):
    if not cond:
        print("FAIL " + what)
        sys.exit(1)
    print("ok   " + what)


def main():
    base, dst = sys.argv[1].rstrip("/"), sys.argv[2]
    rpc = xmlrpc.client.ServerProxy(base + "/RPC2")
    methods = rpc.system.listMethods()
    check("NetworkMeasurementRequest" in methods and "nmwg.message" in methods, f"listMethods {methods}")
    check("characteristic" in rpc.system.methodHelp("NetworkMeasurementRequest"), "methodHelp")

    r = rpc.NetworkMeasurementRequest({
        "characteristic": "path.delay.roundTrip",
        "subject": {"path": {"destination": {"name": dst}}},
        "methodology": {"tool": {"name": "nmprobe"}, "parameters": {"count": 4, "interval": "0.01"}},
    })
    res = r["results"][0]
    check(r["newMeasurement"] and res["statistics"]["sent"] == 4.0 and res["statistics"]["received"] == 4.0,
          f"NetworkMeasurementRequest measured sent={res['statistics'].get('sent')}")
    check(0 < res["statistics"]["minRtt"] < 50, f"minRtt {res['statistics']['minRtt']} ms")
    hosts = res["environment"]["host"]
    check(hosts[0]["role"] == "src" and hosts[0]["kernel"], f"environment src kernel {hosts[0].get('kernel')}")
    start = res["startTime"]

    stored = rpc.NetworkMeasurementRequest({
        "characteristic": "path.delay.roundTrip",
        "subject": {"path": {"destination": {"name": dst}}},
        # dateTime.iso8601 carries whole seconds: the window is from that second to now (unix seconds).
        "startTime": start, "endTime": int(time.time()) + 1, "allowNewMeasurements": False,
        "statistics": ["min", "mean"],
    })
    got = stored["results"]
    check(not stored["newMeasurement"] and any(x["statistics"]["minRtt"] == res["statistics"]["minRtt"] for x in got)
          and all("sent" not in x["statistics"] for x in got),
          f"stored result read back among {len(got)} with statistics {sorted(got[0]['statistics'])}")

    msg = ('<nmwg:message xmlns:nmwg="http://ggf.org/ns/nmwg/base/2.0/" type="EchoRequest" id="x1">'
           '<nmwg:metadata id="m1"><nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType>'
           '</nmwg:metadata><nmwg:data id="d1" metadataIdRef="m1"/></nmwg:message>')
    reply = rpc.nmwg.message(msg)
    check('type="EchoResponse"' in reply and "success.echo" in reply, "nmwg.message echo")

    for call, code in ((lambda: rpc.no.such.method(), -32601),
                       (lambda: rpc.NetworkMeasurementRequest("not a struct"), -32602),
                       (lambda: rpc.NetworkMeasurementRequest({"characteristic": "path.bogus",
                                                               "subject": {"node": {"name": dst}}}), 6),
                       (lambda: rpc.NetworkMeasurementRequest({"characteristic": "path.delay.roundTrip",
                                                               "subject": {"node": {"name": "bad host;rm"}}}), 5),
                       (lambda: rpc.NetworkMeasurementRequest({"characteristic": "path.delay.roundTrip",
                                                               "subject": {"node": {"name": "10.255.255.1"}},
                                                               "endTime": 1000, "allowNewMeasurements": False}), 1)):
        try:
            call()
            check(False, f"expected fault {code}")
        except xmlrpc.client.Fault as f:
            check(f.faultCode == code and f.faultString, f"fault {f.faultCode}: {f.faultString[:70]}")
    print("xmlrpc interop passed")


if __name__ == "__main__":
    main()

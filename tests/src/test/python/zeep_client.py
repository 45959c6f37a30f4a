#!/usr/bin/env python3
"""An independent SOAP client: Python zeep reads nmws's served WSDL and calls it over SOAP 1.1
and SOAP 1.2 (Echo, MeasurementRequest against a local responder, MetadataKeyRequest, and a
SetupDataRequest by the key it returned); then, as a WSDL-generated client does, it takes the
WSDL served at either endpoint and calls each port at the address the WSDL gives it, and calls
the GGF v1 operation (networkMeasurementRequest, sent with the WSDL's empty SOAPAction). Prints one line per check; exits non-zero on the
first wrong answer. Run by tests/.../InteropTest.

usage: zeep_client.py BASE_URL DST"""
import sys
from lxml import etree
import zeep
from zeep.transports import Transport

NMWG = "http://ggf.org/ns/nmwg/base/2.0/"
NMWGT = "http://ggf.org/ns/nmwg/topology/2.0/"
PINGER = "http://ggf.org/ns/nmwg/tools/pinger/2.0/"
SVC = "{http://nmws.org/ns/service/1.0/}"


def el(ns, local, text=None, **attrs):
    e = etree.Element("{%s}%s" % (ns, local), nsmap={"nmwg": NMWG, "nmwgt": NMWGT})
    for k, v in attrs.items():
        e.set(k, v)
    if text is not None:
        e.text = text
    return e


def metadata_children(dst=None, event_type=None, params=None, key=None):
    kids = []
    if dst:
        subject = el(NMWG, "subject", id="s1")
        pair = el(NMWGT, "endPointPair")
        pair.append(el(NMWGT, "dst", type="ipv4", value=dst))
        subject.append(pair)
        kids.append(subject)
    if event_type:
        kids.append(el(NMWG, "eventType", event_type))
    if params:
        ps = el(NMWG, "parameters", id="p1")
        for k, v in params.items():
            ps.append(el(NMWG, "parameter", v, name=k))
        kids.append(ps)
    if key:
        k = el(NMWG, "key")
        ps = el(NMWG, "parameters", id="k1")
        ps.append(el(NMWG, "parameter", key, name="maKey"))
        k.append(ps)
        kids.append(k)
    return kids


def call(client, service, mtype, kids):
    """Builds the nmwg:message through zeep's types from the WSDL and submits it."""
    Metadata = client.get_element("{%s}metadata" % NMWG)
    Data = client.get_element("{%s}data" % NMWG)
    md = Metadata(id="m1", _value_1=kids)
    data = Data(id="d1", metadataIdRef="m1")
    return service.submit(type=mtype, id="zeep.1", _value_1=[{"metadata": md}, {"data": data}])


def items(reply):
    """(metadata list, data list) of a reply, as zeep returns them."""
    mds, datas = [], []
    for choice in reply._value_1:
        if "metadata" in choice and choice["metadata"] is not None:
            mds.append(choice["metadata"])
        if "data" in choice and choice["data"] is not None:
            datas.append(choice["data"])
    return mds, datas


def event_types(md):
    """zeep reads nmwg:eventType (a global element of the WSDL's schema) as a plain string."""
    return [x for x in md._value_1 or [] if isinstance(x, str)]


def any_elements(obj):
    """Elements zeep does not know (tool namespaces such as pinger) stay lxml elements."""
    return [x for x in obj._value_1 or [] if isinstance(x, etree._Element)]


def parameters(obj):
    """Every nmwg:parameter zeep parsed anywhere under obj, as (name, value)."""
    out = []
    def walk(x):
        if isinstance(x, list):
            for y in x:
                walk(y)
        elif hasattr(x, "__values__"):
            values = x.__values__
            if "name" in values and "_value_1" in values and isinstance(values.get("name"), str):
                out.append((values["name"], values["_value_1"] if values["_value_1"] is not None else values.get("value")))
            for v in values.values():
                walk(v)
    walk(obj)
    return out


def check(cond, what):
    if not cond:
        print("FAIL " + what)
        sys.exit(1)
    print("ok   " + what)


def main():
    base, dst = sys.argv[1].rstrip("/"), sys.argv[2]
    client = zeep.Client(base + "/services/MeasurementService?wsdl", transport=Transport(timeout=120))
    # A count no other client uses, per binding, so the key request matches exactly one series.
    for binding, path, count in (("MeasurementSoap11Binding", "/services/MeasurementService", "9"),
                                 ("MeasurementSoap12Binding", "/services/MeasurementService12", "11")):
        service = client.create_service(SVC + binding, base + path)
        tag = binding[len("Measurement"):-len("Binding")]

        echo = call(client, service, "EchoRequest",
                    metadata_children(event_type="http://schemas.perfsonar.net/tools/admin/echo/2.0"))
        mds, _ = items(echo)
        ets = [et for m in mds for et in event_types(m)]
        check(echo.type == "EchoResponse" and ets == ["success.echo"], f"{tag} echo -> {echo.type} {ets}")

        meas = call(client, service, "MeasurementRequest",
                    metadata_children(dst=dst, event_type="path.delay.roundTrip",
                                      params={"count": count, "interval": "0.01"}))
        mds, datas = items(meas)
        figures = {e.get("name"): e.get("value") for d in datas for e in any_elements(d)
                   if etree.QName(e).namespace == PINGER}
        check(meas.type == "MeasurementResponse" and figures.get("sent") == count and figures.get("received") == count,
              f"{tag} measurement sent={figures.get('sent')} received={figures.get('received')}")
        rtt = float(figures["minRtt"])
        check(0 < rtt < 50, f"{tag} minRtt {rtt} ms on loopback")

        mdk = call(client, service, "MetadataKeyRequest",
                   metadata_children(dst=dst, event_type="http://ggf.org/ns/nmwg/tools/ping/2.0/",
                                     params={"count": count, "interval": "0.01"}))
        mds, datas = items(mdk)
        keys = [v for d in datas for n, v in parameters(d) if n == "maKey"]
        check(mdk.type == "MetadataKeyResponse" and len(keys) == 1, f"{tag} metadata key request -> {len(keys)} key")

        sd = call(client, service, "SetupDataRequest", metadata_children(key=keys[0]))
        mds, datas = items(sd)
        stored = [e.get("value") for d in datas for e in any_elements(d)
                  if etree.QName(e).namespace == PINGER and e.get("name") == "minRtt"]
        check(sd.type == "SetupDataResponse" and figures["minRtt"] in stored,
              f"{tag} setup data by key holds minRtt {figures['minRtt']} among {len(stored)}")

    # The WSDL at either endpoint names both ports by absolute addresses: a client that takes
    # a port as the WSDL gives it (the first one is zeep's default) reaches the service.
    for wsdl_path in ("/services/MeasurementService", "/services/MeasurementService12"):
        c = zeep.Client(base + wsdl_path + "?wsdl", transport=Transport(timeout=120))
        for port_name, port in c.wsdl.services["MeasurementService"].ports.items():
            address = port.binding_options["address"]
            check(address.startswith(base + "/services/"), f"{wsdl_path} WSDL gives {port_name} at {address}")
            echo = call(c, c.bind("MeasurementService", port_name), "EchoRequest",
                        metadata_children(event_type="http://schemas.perfsonar.net/tools/admin/echo/2.0"))
            check(echo.type == "EchoResponse", f"{wsdl_path} WSDL, {port_name} as given: echo -> {echo.type}")
        echo = call(c, c.service, "EchoRequest",
                    metadata_children(event_type="http://schemas.perfsonar.net/tools/admin/echo/2.0"))
        check(echo.type == "EchoResponse", f"{wsdl_path} WSDL, default port: echo -> {echo.type}")

        # GGF v1 through the WSDL's own operation: zeep builds the request from the XSD.
        report = c.service.networkMeasurementRequest(version="1.0", request=[{
            "characteristic": "path.delay.roundTrip",
            "subject": {"path": {"destination": {"address": {"host": dst}}}},
            "methodology": {"parameterSet": [{"parameter": [{"_value_1": "4", "name": "count"},
                                                            {"_value_1": "0.01", "name": "interval"}]}]},
            "statistics": {"statistic": ["min"]},
            "maxResults": 1, "allowNewMeasurements": True}])
        results = [x["result"] for x in report._value_1 or [] if x.get("result") is not None]
        faults = [x["nmwgFault"] for x in report._value_1 or [] if x.get("nmwgFault") is not None]
        check(len(results) == 1 and not faults, f"{wsdl_path} WSDL, v1 operation: {len(results)} result, {len(faults)} faults")
        stats = {s_["name"]: s_["_value_1"] for m in results[0]["measurement"] for s_ in m["statistic"]}
        check("minRtt" in stats and 0 < stats["minRtt"] < 50, f"{wsdl_path} WSDL, v1 operation: minRtt {stats.get('minRtt')} ms")
    print("zeep interop passed")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Sums up a JFR recording's execution samples (from `jfr print --json --events
jdk.ExecutionSample FILE`) for bench/profile_soap.sh: the share of samples under each marker
frame (a sample counts once per marker, markers overlap) and the top frames by own time.
usage: jfr_summary.py NAME JSON_FILE"""
import collections
import json
import sys

MARKERS = [  # (what, frame prefix): frames that do one thing, not the ones that wrap the chain
    ("request body UTF-8 check", "org.nmws.service.nmwg.StrictUtf8"),
    ("OneBodyElement prepasses", "org.nmws.service.transport.OneBodyElement.handleMessage"),
    ("SafeXml streaming count", "org.nmws.service.nmwg.SafeXml.countWhileStreaming"),
    ("CXF reads the envelope to DOM", "org.apache.cxf.staxutils.StaxUtils.read"),
    ("CXF WS-Policy interceptors", "org.apache.cxf.ws.policy"),
    ("tree shape check", "org.nmws.service.nmwg.SafeXml.checkDepth"),
    ("the NMWG handler", "org.nmws.service.nmwg.MessageHandler.handle"),
    ("archive read", "org.nmws.service.usecase.StoredResults.find"),
    ("archive read by id", "org.nmws.service.archive.JdbcArchive.findById"),
    ("answer built (NmwgWriter, forms)", "org.nmws.service.nmwg.StoredAnswers.setupData"),
    ("String.format", "java.lang.String.format"),
    ("JAXB marshal", "org.glassfish.jaxb.runtime.v2.runtime.MarshallerImpl.marshal"),
    ("JAXB marshaller made", "org.glassfish.jaxb.runtime.v2.runtime.JAXBContextImpl.createMarshaller"),
    ("DOM of the answer", "org.nmws.service.nmwg.NmwgWriter.toDocument"),
    ("CXF writes the answer", "org.apache.cxf.databinding.source.XMLStreamDataWriter.write"),
    ("CXF reads the DOM answer back (W3CDOMStreamReader)", "org.apache.cxf.staxutils.W3CDOMStreamReader"),
    ("Jackson reads (archive JSON)", "com.fasterxml.jackson.databind.ObjectMapper.readValue"),
    ("Jackson writes JSON", "com.fasterxml.jackson.databind.ser"),
    ("socket write", "sun.nio.ch.SocketDispatcher.write"),
    ("Micrometer observation", "io.micrometer"),
]


def name(frame):
    m = frame["method"]
    return (m["type"]["name"] + "." + m["name"]).replace("/", ".")


def main():
    label, path = sys.argv[1], sys.argv[2]
    events = json.load(open(path))["recording"]["events"]
    own, under = collections.Counter(), collections.Counter()
    for e in events:
        st = e["values"].get("stackTrace")
        frames = st["frames"] if st else []
        if not frames:
            continue
        own[name(frames[0])] += 1
        names = [name(f) for f in frames]
        seen = set()
        for what, prefix in MARKERS:
            if what not in seen and any(n.startswith(prefix) for n in names):
                under[what] += 1
                seen.add(what)
    n = sum(own.values()) or 1
    print("## %s: %d samples" % (label, n))
    print("under: " + "; ".join("%s %.0f%%" % (k, 100 * v / n) for k, v in under.most_common()))
    print("own: " + "; ".join("%s %.0f%%" % (".".join(k.split(".")[-2:]), 100 * v / n) for k, v in own.most_common(10)))


if __name__ == "__main__":
    main()

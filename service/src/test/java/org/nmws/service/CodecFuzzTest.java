package org.nmws.service;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.archive.FrameCodec;
import org.nmws.service.nmwg.NmwgException;
import org.nmws.service.nmwg.NmwgReader;
import org.nmws.service.nmwg.SafeXml;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.Params;
import org.nmws.service.observation.Times;
import org.nmws.service.xmlrpc.XmlRpcCodec;

/**
 * Jazzer over the codecs that read what clients send (and what the archive stores): each may
 * refuse its input only with its own documented exception; anything else (a
 * NullPointerException, an index out of bounds, a stack overflow, a hang) is a finding.
 * Without JAZZER_FUZZ these run once per seed as regression tests; scripts/test.sh fuzzes
 * each for a bounded time. In this package because Jazzer instruments the test class's
 * package and those below it: all of org.nmws.service.
 */
class CodecFuzzTest {
    private static final SafeXml XML = new SafeXml(65536, 64);
    private static final XmlRpcCodec XMLRPC = new XmlRpcCodec(65536, 64, 10_000);

    @FuzzTest(maxDuration = "20s")
    void nmwgMessages(byte[] input) {
        try {
            new NmwgReader().read(XML.parse(input));
        } catch (NmwgException refused) {
            // a clear error for the client
        }
    }

    @FuzzTest(maxDuration = "20s")
    void xmlRpcCalls(byte[] input) {
        try {
            XMLRPC.decode(input);
        } catch (XmlRpcCodec.Fault refused) {
            // a fault for the client
        }
    }

    @FuzzTest(maxDuration = "20s")
    void parametersAndTimes(FuzzedDataProvider data) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("v", data.consumeString(64));
        String time = data.consumeRemainingAsString();
        try {
            Params.integer(p, "v", 1, 0, 1_000_000);
        } catch (IllegalArgumentException refused) {
            // error.common.parameter
        }
        try {
            Params.decimal(p, "v", 1, 0, 1e9);
        } catch (IllegalArgumentException refused) {
            // error.common.parameter
        }
        try {
            Times.parse("time", time);
        } catch (IllegalArgumentException refused) {
            // error.common.parameter
        }
    }

    @FuzzTest(maxDuration = "20s")
    void storedFrameChunks(FuzzedDataProvider data) {
        int count = data.consumeInt(0, 5000);
        byte[] chunk = data.consumeRemainingAsBytes();
        List<Observation.Frame> out = new ArrayList<>();
        try {
            FrameCodec.decode(chunk, count, out);
        } catch (IllegalStateException corrupt) {
            // a damaged archive row, reported as such
        }
    }
}

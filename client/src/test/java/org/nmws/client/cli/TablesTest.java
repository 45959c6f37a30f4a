package org.nmws.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How answers read in a table (issue 26): integers, units, local times, families, headings, clock warnings. */
class TablesTest {

    @Test
    void countsPrintAsIntegersBytesAndRatesWithAUnitAndNoExponent() {
        assertEquals(new Values.Shown("2000", ""), Values.figure("2000.0", ""));
        assertEquals(new Values.Shown("10.72", "GB"), Values.figure("1.072E10", "bytes"));
        assertEquals(new Values.Shown("512", "bytes"), Values.figure("512.0", "bytes"));
        assertEquals(new Values.Shown("800", "kbit/s"), Values.figure("0.8", "Mbit/s"));
        assertEquals(new Values.Shown("48.2", "Mbit/s"), Values.figure("48.2", "Mbit/s"));
        assertEquals(new Values.Shown("9.413", "Gbit/s"), Values.figure("9413.2", "Mbit/s"));
        assertEquals(new Values.Shown("0.00001234", "ms"), Values.figure("1.234E-5", "ms"));
        assertEquals("1 GB", Values.bytes(new BigDecimal("1e9")));
        assertEquals("48.21 Mbit/s", Values.bitsPerSecond(new BigDecimal("4.8213E7")));
    }

    @Test
    void unixSecondsAndIsoInstantsPrintAsLocalIsoTimesToTheSecond() {
        Instant t = Instant.parse("2026-11-26T10:40:05.123Z");
        String local = Values.time(t);
        assertEquals(java.time.OffsetDateTime.parse(local).toInstant(), Instant.parse("2026-11-26T10:40:05Z"), local);
        assertEquals(local, Values.unixTime("1795689605.123456789"));
        assertEquals(local, Values.anyTime("2026-11-26T10:40:05.123Z"));
        assertEquals("not a time", Values.anyTime("not a time"));
    }

    private static final String NMWG = "http://ggf.org/ns/nmwg/base/2.0/";

    /** A one-way answer as the service writes it, with 50 histogram bins and the clocks' bound given. */
    private static String oneWay(String uncertaintyMs, String srcSynchronised) {
        StringBuilder figures = new StringBuilder();
        figures.append(figure("sent", "2000.0", null)).append(figure("medianDelayMs", "0.0412", "ms"))
                .append(figure("oneWayUncertaintyMs", uncertaintyMs, "ms")).append(figure("bufferBytes", "1.072E10", "bytes"))
                .append(figure("receiverUserMbps", "0.8", "Mbit/s"));
        for (int i = 0; i < 50; i++) {
            figures.append(figure("interArrivalBin" + i, i == 7 ? "1999.0" : "0.0", null));
        }
        return "<nmwg:message xmlns:nmwg='" + NMWG + "' type='MeasurementResponse'>"
                + "<nmwg:metadata id='m1'><nmwg:eventType>path.delay.oneWay</nmwg:eventType>"
                + "<env:environment xmlns:env='http://nmws.org/ns/environment/1.0/'>"
                + "<env:host role='src'><env:clock synchronized='" + srcSynchronised + "'/></env:host>"
                + "<env:host role='dst'><env:clock synchronized='true'/></env:host></env:environment></nmwg:metadata>"
                + "<nmwg:data metadataIdRef='m1'>"
                + "<summary:datum xmlns:summary='http://ggf.org/ns/nmwg/characteristic/delay/summary/20070921/' timeType='unix'"
                + " startTime='1795689605.123456789' sent='2000'/>"
                + "<ns4:datum xmlns:ns4='http://ggf.org/ns/nmwg/tools/traceroute/2.0/' hop='1' ip='10.0.0.1'/>"
                + figures + "</nmwg:data></nmwg:message>";
    }

    private static String figure(String name, String value, String units) {
        return "<nmws:datum xmlns:nmws='http://nmws.org/ns/figures/' name='" + name + "' value='" + value + "'"
                + (units == null ? "" : " valueUnits='" + units + "'") + "/>";
    }

    private static List<String> table(String xml) {
        StringWriter out = new StringWriter();
        Answers.printTables(Answers.read(xml), new PrintWriter(out, true));
        return out.toString().lines().toList();
    }

    @Test
    void aOneWayTableShowsIntegersUnitsOneLineForTheHistogramAndNamedHeadings() {
        List<String> lines = table(oneWay("0.002", "true"));
        assertEquals("path.delay.oneWay", lines.get(0));
        for (String row : List.of("sent +2000", "bufferBytes +10\\.72 +GB", "receiverUserMbps +800 +kbit/s",
                "interArrivalBin0\\.\\.49 +50 values, 1 not 0 \\(--json lists them\\)")) {
            assertTrue(lines.stream().anyMatch(l -> l.matches(row)), row + " in\n" + String.join("\n", lines));
        }
        assertEquals(1, lines.stream().filter(l -> l.startsWith("interArrivalBin")).count());
        assertTrue(lines.contains("hops"), "a proper heading, not ns4:datum: " + lines);
        assertTrue(lines.contains("owamp summary"), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.contains(Values.unixTime("1795689605"))), "no epoch numbers: " + lines);
        assertFalse(lines.stream().anyMatch(l -> l.contains("1795689605") || l.contains("E10") || l.contains("ns4")), lines.toString());
        assertFalse(lines.stream().anyMatch(l -> l.startsWith("warning")), "the clocks vouch for the delays: " + lines);
    }

    @Test
    void oneWayFiguresBelowTheClocksUncertaintyCarryAWarning() {
        List<String> lines = table(oneWay("32000", "true"));
        assertEquals("warning: the clocks are not synchronised well enough; the one-way figures are bounded only by"
                + " \u00b132000 ms (median delay 0.0412 ms)", lines.get(1));
        List<String> unsynchronised = table(oneWay("0.002", "false"));
        assertEquals("warning: the sender's clock is not synchronised; the one-way figures are bounded only by"
                + " \u00b10.002 ms (median delay 0.0412 ms)", unsynchronised.get(1));
    }

    @Test
    void aOneWayAnswerTakenAcrossAClockStepSaysSo() {
        List<String> lines = table(oneWay("0.002", "true").replace(
                "<env:clock synchronized='true'/></env:host><env:host role='dst'>",
                "<env:clock synchronized='true' stepNs='-1000004213'/></env:host><env:host role='dst'>"));
        assertEquals("warning: the sender's clock was stepped by -1 s during the test; one-way figures across the"
                + " step are off by about that much", lines.get(1));
    }

    @Test
    void theDiagnosisNamesThisCommandLinesFlag() {
        StringWriter out = new StringWriter();
        JsonTables.diagnosis(new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().put("cause", "unknown")
                .put("summary", "no TCP test stored to 10.0.0.2; ask with measure=true to run one"), new PrintWriter(out, true));
        assertEquals(List.of("cause: unknown", "no TCP test stored to 10.0.0.2; run again with --measure to run one"),
                out.toString().lines().toList());
    }

    @Test
    void aContinuousStreamsPhaseShowsAsItsSecondInTheMinuteAndTheEpochAsNone() {
        com.fasterxml.jackson.databind.node.JsonNodeFactory f = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
        assertEquals("each minute at :23.456", JsonTables.cell(f.numberNode(new BigDecimal("23.456")), JsonTables.Kind.TIME));
        assertEquals("each minute at :05.5", JsonTables.cell(f.textNode("1970-01-01T00:00:05.500Z"), JsonTables.Kind.TIME));
        assertEquals("-", JsonTables.cell(f.numberNode(0), JsonTables.Kind.TIME));
        assertEquals("-", JsonTables.cell(f.textNode("1970-01-01T00:00:00Z"), JsonTables.Kind.TIME));
        // a real time is a time, the epoch's second minute included
        assertEquals(Values.unixTime("60"), JsonTables.cell(f.numberNode(60), JsonTables.Kind.TIME));
    }
}

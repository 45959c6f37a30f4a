package org.nmws.service.cost;

import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.JAXBException;
import jakarta.xml.bind.Marshaller;
import java.time.Duration;
import java.util.GregorianCalendar;
import java.util.List;
import javax.xml.datatype.DatatypeConfigurationException;
import javax.xml.datatype.DatatypeFactory;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.nmws.schema.cost.CostRequest;
import org.nmws.schema.cost.CostResponse;
import org.nmws.schema.cost.CostType;
import org.nmws.schema.cost.ObjectFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Costs and diagnoses as the XML of nmws-cost.xsd: the cost:datum and cost:diagnosis an NMWG
 * answer carries, and the cost:costRequest / cost:costResponse of the WSDL's transferCost
 * operation.
 */
public final class CostXml {
    private static final ObjectFactory COST = new ObjectFactory();
    private static final JAXBContext CONTEXT = context();
    /**
     * The published schema, which requests are held to: JAXB alone reads streams="99999999999"
     * as 1215752191 (an int wrapped around), refresh="maybe" as false and a missing bytes as 0.
     */
    private static final javax.xml.validation.Schema REQUEST_SCHEMA = requestSchema();
    private static final DatatypeFactory TIMES = times();

    private CostXml() {
    }

    /** One ranked cost as the schema's CostType. */
    public static CostType costType(TransferCost c, int rank) {
        CostType t = new CostType();
        t.setRank(rank);
        t.setSrc(c.src());
        t.setDst(c.dst());
        t.setBytes(c.bytes());
        t.setSeconds(c.seconds());
        t.setRateMbps(c.rateMbps());
        t.setBasis(c.basis());
        t.setRttMs(c.rttMs());
        t.setLossPercent(c.lossPercent());
        t.setPredictor(c.predictor());
        t.setExpectedErrorPercent(c.expectedErrorPercent());
        t.setSamples(c.samples());
        if (c.measuredAt() != null) {
            GregorianCalendar g = GregorianCalendar.from(c.measuredAt().atZone(java.time.ZoneOffset.UTC));
            t.setMeasuredAt(TIMES.newXMLGregorianCalendar(g));
        }
        t.setAgeSeconds(c.ageSeconds());
        if (c.refreshed()) {
            t.setRefreshed(true);
        }
        t.setNote(c.note());
        return t;
    }

    /** A ranked list as cost:datum elements (JAXB), rank 1 the cheapest. */
    public static List<Object> datums(List<TransferCost> ranked) {
        List<Object> out = new java.util.ArrayList<>();
        for (int i = 0; i < ranked.size(); i++) {
            out.add(COST.createDatum(costType(ranked.get(i), i + 1)));
        }
        return out;
    }

    /** A cost:datum another point answered, as a cost from that point (src). */
    public static TransferCost fromDatum(Element d, String src) {
        return new TransferCost(src, d.getAttribute("dst"), (long) num(d, "bytes", 0.0), numOrNull(d, "seconds"),
                numOrNull(d, "rateMbps"), d.getAttribute("basis"),
                measuredAt(d),
                numOrNull(d, "rttMs"), numOrNull(d, "lossPercent"), d.hasAttribute("predictor") ? d.getAttribute("predictor") : null,
                numOrNull(d, "expectedErrorPercent"), (int) num(d, "samples", 0.0),
                d.hasAttribute("ageSeconds") ? (long) num(d, "ageSeconds", 0.0) : null,
                "true".equals(d.getAttribute("refreshed")), d.hasAttribute("note") ? d.getAttribute("note") : null);
    }

    /** A point's timestamp, or null when it sent none or one that does not parse. */
    private static java.time.Instant measuredAt(Element d) {
        try {
            return d.hasAttribute("measuredAt") ? java.time.OffsetDateTime.parse(d.getAttribute("measuredAt")).toInstant() : null;
        } catch (java.time.format.DateTimeParseException bad) {
            return null;
        }
    }

    private static Double numOrNull(Element e, String name) {
        return e.hasAttribute(name) ? num(e, name, 0.0) : null;
    }

    private static double num(Element e, String name, double dflt) {
        try {
            return e.hasAttribute(name) ? Double.parseDouble(e.getAttribute(name)) : dflt;
        } catch (NumberFormatException bad) {
            return dflt;
        }
    }

    /** A diagnosis as cost:diagnosis (JAXB). */
    public static org.nmws.schema.cost.Diagnosis diagnosis(DiagnosisService.Diagnosis d) {
        org.nmws.schema.cost.Diagnosis x = new org.nmws.schema.cost.Diagnosis();
        x.setSrc(d.src());
        x.setDst(d.dst());
        x.setCause(d.cause());
        x.setHop(d.hop());
        x.setHopAddress(d.hopAddress());
        x.setSummary(d.summary());
        for (DiagnosisService.Evidence e : d.evidence()) {
            org.nmws.schema.cost.Diagnosis.Evidence xe = new org.nmws.schema.cost.Diagnosis.Evidence();
            xe.setName(e.name());
            xe.setValue(e.value() == null || e.value().isNaN() || e.value().isInfinite() ? null : e.value());
            xe.setUnits(e.units());
            xe.setText(e.text());
            x.getEvidence().add(xe);
        }
        return x;
    }

    /**
     * Reads a cost:costRequest body (already parsed by the hardened parser).
     *
     * @throws IllegalArgumentException when it does not follow the schema or asks out of range
     */
    public static CostQuery query(Element costRequest) {
        CostRequest r;
        try {
            jakarta.xml.bind.Unmarshaller u = CONTEXT.createUnmarshaller();
            u.setSchema(REQUEST_SCHEMA);
            r = u.unmarshal(costRequest, CostRequest.class).getValue();
        } catch (JAXBException | RuntimeException e) {
            throw new IllegalArgumentException("not a cost:costRequest: " + schemaError(e), e);
        }
        Duration maxAge = r.getMaxAge() == null ? Duration.ofHours(24)
                : Duration.ofMillis(r.getMaxAge().getTimeInMillis(new java.util.Date(0)));
        Double budget = r.getTimeBudget();
        if (budget != null && !(budget > 0 && budget <= CostQuery.MAX_BUDGET.toSeconds())) {
            throw new IllegalArgumentException("timeBudget must be 0.." + CostQuery.MAX_BUDGET.toSeconds() + " s");
        }
        return new CostQuery(r.getSrc(), r.getDst(), r.getBytes(), maxAge, Boolean.TRUE.equals(r.isRefresh()),
                budget == null ? null : Duration.ofMillis(Math.round(budget * 1000)), r.getStreams() == null ? 1 : r.getStreams(),
                null, r.getProtocol());
    }

    /** The WSDL operation's answer: a cost:costResponse document. */
    /** What the schema (or JAXB) found wrong, without the exception classes that carried it. */
    private static String schemaError(Exception e) {
        Throwable why = e instanceof JAXBException j && j.getLinkedException() != null ? j.getLinkedException() : e;
        String m = why.getMessage() == null ? why.getClass().getSimpleName() : why.getMessage();
        return m.replaceFirst("^cvc-[\\w.-]+: ", "");
    }

    private static javax.xml.validation.Schema requestSchema() {
        try {
            javax.xml.validation.SchemaFactory f = javax.xml.validation.SchemaFactory.newInstance(
                    javax.xml.XMLConstants.W3C_XML_SCHEMA_NS_URI);
            f.setProperty(javax.xml.XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setProperty(javax.xml.XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            java.net.URL xsd = CostXml.class.getClassLoader().getResource("nmws/xsd/nmws-cost.xsd");
            if (xsd == null) {
                throw new IllegalStateException("nmws/xsd/nmws-cost.xsd is not on the class path");
            }
            return f.newSchema(xsd);
        } catch (org.xml.sax.SAXException e) {
            throw new IllegalStateException("cannot read the cost schema: " + e.getMessage(), e);
        }
    }

    public static Document response(List<TransferCost> ranked) {
        CostResponse resp = new CostResponse();
        for (int i = 0; i < ranked.size(); i++) {
            resp.getCost().add(costType(ranked.get(i), i + 1));
        }
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            Document doc = f.newDocumentBuilder().newDocument();
            Marshaller m = CONTEXT.createMarshaller();
            m.marshal(resp, doc);
            return doc;
        } catch (JAXBException | ParserConfigurationException e) {
            throw new IllegalStateException("cannot write a cost response: " + e.getMessage(), e);
        }
    }

    /** A cost:costFault document saying why a request cannot be answered. */
    public static byte[] fault(String reason) {
        try {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            Marshaller m = CONTEXT.createMarshaller();
            m.setProperty(Marshaller.JAXB_ENCODING, "UTF-8");
            m.marshal(COST.createCostFault(reason), out);
            return out.toByteArray();
        } catch (JAXBException e) {
            throw new IllegalStateException("cannot write a cost fault: " + e.getMessage(), e);
        }
    }

    private static JAXBContext context() {
        try {
            return JAXBContext.newInstance(ObjectFactory.class);
        } catch (JAXBException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static DatatypeFactory times() {
        try {
            return DatatypeFactory.newInstance();
        } catch (DatatypeConfigurationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}

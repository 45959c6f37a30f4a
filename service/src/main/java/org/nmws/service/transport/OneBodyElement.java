package org.nmws.service.transport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import javax.xml.namespace.QName;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.apache.cxf.binding.soap.Soap11;
import org.apache.cxf.binding.soap.Soap12;
import org.apache.cxf.binding.soap.SoapFault;
import org.apache.cxf.binding.soap.SoapMessage;
import org.apache.cxf.binding.soap.SoapVersion;
import org.apache.cxf.binding.soap.interceptor.AbstractSoapInterceptor;
import org.apache.cxf.interceptor.Fault;
import org.apache.cxf.interceptor.StaxInInterceptor;
import org.apache.cxf.message.Message;
import org.apache.cxf.phase.Phase;

/**
 * The SOAP body must hold exactly one element: the nmwg:message, GGF NM-WG v1
 * networkMeasurementRequest or cost:costRequest that the Provider answers. CXF itself picks no
 * operation for an empty body (a Server fault, "No binding operation info") and dereferences a
 * missing message part for a second element (a NullPointerException), so the count is checked
 * here, before CXF reads the envelope, and a wrong one is a Client (1.2: Sender) fault saying
 * what the body held. The body is scanned as a stream (no DTD, no entities) and handed on
 * unchanged. A document whose root is no SOAP Envelope is a VersionMismatch fault, as SOAP 1.1 and
 * 1.2 both say (CXF words it a Receiver fault in 1.2); a document that is not well-formed, or an
 * envelope of the other SOAP version, is left for CXF to answer in its own words.
 */
final class OneBodyElement extends AbstractSoapInterceptor {
    static final String WHAT = "it must hold exactly one element: an nmwg:message, a GGF NM-WG v1 networkMeasurementRequest"
            + " or a cost:costRequest";
    private static final XMLInputFactory STREAMING = streamingFactory();

    /** The largest body read: the servlet filter has refused anything longer already. */
    private final int maxBytes;

    OneBodyElement(int maxBytes) {
        super(Phase.POST_STREAM);
        addBefore(StaxInInterceptor.class.getName());
        this.maxBytes = maxBytes;
    }

    @Override
    public void handleMessage(SoapMessage message) {
        InputStream in = message.getContent(InputStream.class);
        if (in == null || isGET(message)) {
            return;
        }
        byte[] body;
        try {
            body = in.readNBytes(maxBytes + 1);
        } catch (IOException e) {
            throw new Fault(e); // the connection failed while reading: CXF words it as any read failure
        }
        message.setContent(InputStream.class, new ByteArrayInputStream(body));
        String encoding = (String) message.get(Message.ENCODING); // the Content-Type's charset, as CXF reads the body
        if (EnvelopeScan.surelyOneBodyElement(body, body.length, encoding, message.getVersion().getNamespace())) {
            return; // the common request, read by a byte scan (issue 20); the stream below words every refusal
        }
        // one streaming pass finds both (issue 25: two passes were a measurable share of an Echo)
        Verdict v = check(body, encoding, message.getVersion());
        if (v == null) {
            return;
        }
        if (v.notAnEnvelope()) {
            // CXF says VersionMismatch in SOAP 1.1 but Receiver (a failure of the service) in SOAP 1.2
            throw new SoapFault(v.reason(), message.getVersion().getVersionMismatch());
        }
        Fault f = new Fault(new IllegalArgumentException(v.reason() + ": " + WHAT));
        f.setFaultCode(Fault.FAULT_CODE_CLIENT);
        throw f;
    }

    /** What is wrong with a document: no SOAP envelope at its root, or a wrong body in this version's envelope. */
    record Verdict(boolean notAnEnvelope, String reason) {
    }

    /**
     * Why the document is refused here, or null when this checks nothing wrong: its root is no SOAP
     * 1.1 or 1.2 Envelope; or, in an envelope of the request's version, the Body is missing, empty
     * or holds more than one element. An envelope of the other version, and a document that is not
     * well-formed, are left to CXF to answer in its own words.
     */
    static Verdict check(byte[] document, String encoding, SoapVersion version) {
        XMLStreamReader r = null;
        try {
            r = reader(document, encoding);
            if (r.nextTag() != XMLStreamConstants.START_ELEMENT) {
                return null;
            }
            QName root = r.getName();
            if (!root.equals(Soap11.getInstance().getEnvelope()) && !root.equals(Soap12.getInstance().getEnvelope())) {
                return new Verdict(true, "the root element " + root + " is not a SOAP 1.1 or 1.2 Envelope");
            }
            if (!root.equals(version.getEnvelope())) {
                return null; // not this version's envelope: CXF answers it
            }
            String wrong = wrongCount(r, version);
            return wrong == null ? null : new Verdict(false, wrong);
        } catch (XMLStreamException | RuntimeException notWellFormed) {
            return null; // CXF's own reader refuses it with the parse error
        } finally {
            close(r);
        }
    }

    /** What is wrong with the envelope's body (no Body, no element, a second element), read on from the Envelope's start. */
    private static String wrongCount(XMLStreamReader r, SoapVersion version) throws XMLStreamException {
        while (r.nextTag() == XMLStreamConstants.START_ELEMENT && !r.getName().equals(version.getBody())) {
            skipElement(r); // the Header (or anything else before the Body)
        }
        if (r.getEventType() != XMLStreamConstants.START_ELEMENT) {
            return "the SOAP envelope has no Body";
        }
        QName first = null;
        int depth = 0;
        while (r.hasNext()) {
            int event = r.next();
            if (event == XMLStreamConstants.START_ELEMENT) {
                if (depth == 0) {
                    if (first != null) {
                        return "the SOAP body holds more than one element (" + first + ", then " + r.getName() + ")";
                    }
                    first = r.getName();
                }
                depth++;
            } else if (event == XMLStreamConstants.END_ELEMENT) {
                if (depth == 0) {
                    return first == null ? "the SOAP body holds no element" : null;
                }
                depth--;
            }
        }
        return null;
    }

    private static XMLStreamReader reader(byte[] document, String encoding) throws XMLStreamException {
        return encoding == null ? STREAMING.createXMLStreamReader(new ByteArrayInputStream(document))
                : STREAMING.createXMLStreamReader(new ByteArrayInputStream(document), encoding);
    }

    private static void close(XMLStreamReader r) {
        if (r != null) {
            try {
                r.close();
            } catch (XMLStreamException ignored) {
                // nothing was held but the byte array
            }
        }
    }

    private static void skipElement(XMLStreamReader r) throws XMLStreamException {
        int depth = 1;
        while (depth > 0) {
            int event = r.next();
            if (event == XMLStreamConstants.START_ELEMENT) {
                depth++;
            } else if (event == XMLStreamConstants.END_ELEMENT) {
                depth--;
            }
        }
    }

    /**
     * Woodstox, the reader CXF itself reads the envelope with: the JDK's reader cost more to set
     * up per body than the whole check (issue 25's Echo profile). Nothing is kept from this pass
     * but the verdict, and anything it cannot read is left to CXF's reader.
     */
    private static XMLInputFactory streamingFactory() {
        XMLInputFactory f = new com.ctc.wstx.stax.WstxInputFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        return f;
    }
}

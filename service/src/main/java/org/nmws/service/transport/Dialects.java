package org.nmws.service.transport;

import java.io.ByteArrayOutputStream;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerException;
import javax.xml.transform.Source;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.nmws.service.cost.CostQuery;
import org.nmws.service.cost.CostXml;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.nmwg.MessageHandler;
import org.nmws.service.nmwg.NmwgException;
import org.nmws.service.nmwg.SafeXml;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.usecase.TransferCosts;
import org.nmws.service.v1.V1Codec;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Routes a raw XML document to the dialect its root element's namespace names: a GGF v1
 * networkMeasurementRequest to the v1 codec, anything else to the NMWG v2 handler (which
 * answers a wrong namespace with error.common.parse_error). Used by every transport that
 * carries raw XML (plain HTTP, XML-RPC's nmwg.message); SOAP routes the same way on the
 * body element it already parsed.
 */
public class Dialects {
    private static final TransformerFactory TRANSFORMERS = transformerFactory();

    private final SafeXml xml;
    private final MessageHandler nmwg;
    private final V1Codec v1;
    private final TransferCosts costs;

    public Dialects(SafeXml xml, MessageHandler nmwg, V1Codec v1) {
        this(xml, nmwg, v1, null);
    }

    /** With the cost service: a cost:costRequest body (the WSDL's transferCost) is answered too. */
    public Dialects(SafeXml xml, MessageHandler nmwg, V1Codec v1, TransferCosts costs) {
        this.xml = xml;
        this.nmwg = nmwg;
        this.v1 = v1;
        this.costs = costs;
    }

    /** A request the client got wrong, for the transport to word (a SOAP Client fault, HTTP 400). */
    public static final class ClientError extends RuntimeException {
        ClientError(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static boolean isCost(Element root) {
        return Namespaces.COST.equals(root.getNamespaceURI()) && "costRequest".equals(root.getLocalName());
    }

    /** The ranked answer to a cost:costRequest; a bad request is a {@link ClientError}. */
    private Document cost(Element root, Caller caller) {
        if (costs == null) {
            throw new ClientError("this service does not answer cost requests", null);
        }
        try {
            CostQuery q = CostXml.query(root);
            return CostXml.response(costs.rank(caller, q));
        } catch (IllegalArgumentException e) {
            throw new ClientError(e.getMessage(), e);
        } catch (MeasurementException e) {
            throw new ClientError(e.getMessage(), e); // a refresh this caller may not ask for
        }
    }

    public byte[] handle(byte[] request, Caller caller) {
        Document doc;
        try {
            doc = xml.parse(request);
        } catch (NmwgException e) {
            return nmwg.handle(request, caller); // the handler words the parse error as every transport does
        }
        Element root = doc.getDocumentElement();
        if (isCost(root)) {
            return toBytes(cost(root, caller));
        }
        return V1Codec.isV1(root) ? toBytes(v1.handle(root, caller)) : nmwg.handleParsed(root, caller);
    }

    /**
     * A body element a SOAP stack parsed: v1 or NMWG v2 by namespace. An NMWG answer comes back
     * as a source that the stack writes straight to the response, without a DOM of it (issue 25).
     */
    Source handle(Element root, Caller caller) {
        try {
            xml.checkDepth(root);
        } catch (NmwgException tooDeep) {
            return nmwg.handleToSource(root, caller); // words the depth error as every transport does
        }
        if (isCost(root)) {
            return new DOMSource(cost(root, caller));
        }
        return V1Codec.isV1(root) ? new DOMSource(v1.handle(root, caller)) : nmwg.handleToSource(root, caller);
    }

    static byte[] toBytes(Document doc) {
        try {
            Transformer t = TRANSFORMERS.newTransformer();
            t.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
            ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
            t.transform(new DOMSource(doc), new StreamResult(out));
            return out.toByteArray();
        } catch (TransformerException e) {
            throw new IllegalStateException("cannot serialise a response: " + e.getMessage(), e);
        }
    }

    private static TransformerFactory transformerFactory() {
        TransformerFactory f = TransformerFactory.newInstance();
        f.setAttribute(javax.xml.XMLConstants.ACCESS_EXTERNAL_DTD, "");
        f.setAttribute(javax.xml.XMLConstants.ACCESS_EXTERNAL_STYLESHEET, "");
        return f;
    }
}

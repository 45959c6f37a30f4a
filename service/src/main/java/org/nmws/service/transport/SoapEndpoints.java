package org.nmws.service.transport;

import org.nmws.service.observation.Namespaces;
import org.nmws.service.security.Callers;

import jakarta.xml.ws.BindingType;
import jakarta.xml.ws.Provider;
import jakarta.xml.ws.Service;
import jakarta.xml.ws.ServiceMode;
import jakarta.xml.ws.WebServiceProvider;
import jakarta.xml.ws.soap.SOAPBinding;
import javax.xml.transform.Source;
import javax.xml.transform.dom.DOMSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The SOAP 1.1 and 1.2 endpoints: Document/Literal, the body payload is the nmwg:message.
 * They take the payload as a DOM so that any NMWG dialect reaches the handler as sent
 * (tool-namespace subjects, unknown types) and gets an NMWG answer, not a binding fault;
 * a GGF v1 networkMeasurementRequest body is routed by its namespace to the v1 codec.
 */
public final class SoapEndpoints {
    static final String NAMESPACE = Namespaces.SERVICE;
    static final String WSDL = "nmws/wsdl/nmws.wsdl";

    private SoapEndpoints() {
    }

    abstract static class Base implements Provider<Source> {
        private final Dialects handler;
        private final Callers callers;

        Base(Dialects handler, Callers callers) {
            this.handler = handler;
            this.callers = callers;
        }

        @Override
        public Source invoke(Source request) {
            // the endpoints ask CXF for the payload as DOM (source-preferred-format, TransportConfig)
            Node n = request instanceof DOMSource dom ? dom.getNode() : null;
            Element root = n instanceof Document d ? d.getDocumentElement() : n instanceof Element e ? e : null;
            if (root == null) {
                // OneBodyElement refuses a body without exactly one element before CXF reads it
                throw new IllegalStateException("the SOAP body reached the endpoint without its element");
            }
            try {
                return handler.handle(root, callers.current());
            } catch (Dialects.ClientError e) {
                // the transferCost operation has no NMWG error result: a Client (1.2: Sender) fault says what is wrong
                org.apache.cxf.interceptor.Fault f = new org.apache.cxf.interceptor.Fault(new IllegalArgumentException(e.getMessage()));
                f.setFaultCode(org.apache.cxf.interceptor.Fault.FAULT_CODE_CLIENT);
                throw f;
            }
        }
    }

    @WebServiceProvider(serviceName = "MeasurementService", portName = "MeasurementSoap11Port",
            targetNamespace = NAMESPACE, wsdlLocation = WSDL)
    @ServiceMode(Service.Mode.PAYLOAD)
    @BindingType(SOAPBinding.SOAP11HTTP_BINDING)
    public static class Soap11 extends Base {
        public Soap11(Dialects handler, Callers callers) {
            super(handler, callers);
        }
    }

    @WebServiceProvider(serviceName = "MeasurementService", portName = "MeasurementSoap12Port",
            targetNamespace = NAMESPACE, wsdlLocation = WSDL)
    @ServiceMode(Service.Mode.PAYLOAD)
    @BindingType(SOAPBinding.SOAP12HTTP_BINDING)
    public static class Soap12 extends Base {
        public Soap12(Dialects handler, Callers callers) {
            super(handler, callers);
        }
    }
}

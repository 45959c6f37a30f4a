package org.nmws.service.transport;

import org.apache.cxf.binding.soap.SoapMessage;
import org.apache.cxf.binding.soap.interceptor.AbstractSoapInterceptor;
import org.apache.cxf.interceptor.Fault;
import org.apache.cxf.phase.Phase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SOAP fault that CXF raised from an internal error while reading an envelope (a body with
 * two elements made it dereference a missing message part) says what the client sent wrong,
 * not which Java reference was null; the internal cause goes to the log.
 */
final class InternalFaultText extends AbstractSoapInterceptor {
    private static final Logger log = LoggerFactory.getLogger(InternalFaultText.class);

    InternalFaultText() {
        super(Phase.PREPARE_SEND);
    }

    @Override
    public void handleMessage(SoapMessage message) {
        if (!(message.getContent(Exception.class) instanceof Fault f)) {
            return;
        }
        Throwable cause = f.getCause();
        if (cause instanceof NullPointerException || cause instanceof ClassCastException
                || cause instanceof IndexOutOfBoundsException) {
            log.warn("SOAP request refused: {}", cause.toString());
            f.setMessage("the SOAP body must hold exactly one element: an nmwg:message or a GGF NM-WG v1"
                    + " networkMeasurementRequest");
            f.setFaultCode(Fault.FAULT_CODE_CLIENT);
        }
    }
}

package org.nmws.service.transport;

import javax.xml.namespace.QName;
import org.apache.cxf.binding.soap.Soap12;
import org.apache.cxf.binding.soap.SoapMessage;
import org.apache.cxf.binding.soap.interceptor.AbstractSoapInterceptor;
import org.apache.cxf.interceptor.Fault;
import org.apache.cxf.phase.Phase;

/**
 * SOAP 1.2's HTTP binding answers an env:Sender fault with 400 Bad Request (SOAP 1.2 part 2,
 * 7.5.1.2); CXF sends 500 for every fault, which tells a client (and an auditor) that the
 * service failed when the request was wrong. A SOAP 1.1 fault stays 500, as its binding says.
 */
final class SenderFaultStatus extends AbstractSoapInterceptor {
    SenderFaultStatus() {
        super(Phase.PREPARE_SEND);
    }

    @Override
    public void handleMessage(SoapMessage message) {
        if (message.getVersion() != Soap12.getInstance() || !(message.getContent(Exception.class) instanceof Fault f)) {
            return;
        }
        QName code = f.getFaultCode();
        if (code != null && (code.equals(Fault.FAULT_CODE_CLIENT) || code.equals(Soap12.getInstance().getSender()))) {
            f.setStatusCode(400); // the status CXF's fault observer answers with
        }
    }
}

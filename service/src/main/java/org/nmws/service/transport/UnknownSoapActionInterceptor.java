package org.nmws.service.transport;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.cxf.binding.soap.SoapMessage;
import org.apache.cxf.binding.soap.interceptor.AbstractSoapInterceptor;
import org.apache.cxf.binding.soap.interceptor.SoapActionInInterceptor;
import org.apache.cxf.helpers.CastUtils;
import org.apache.cxf.message.Message;
import org.apache.cxf.phase.Phase;

/**
 * Document/literal clients send SOAPActions of their own: one the WSDL does not declare is
 * dropped before CXF matches actions to operations, so the request is routed by its body
 * element as one without an action is (nmwg:message to submit, a v1 request to its
 * operation). A declared action still selects its operation, whatever the body holds.
 */
final class UnknownSoapActionInterceptor extends AbstractSoapInterceptor {
    private final Set<String> declared;

    UnknownSoapActionInterceptor(Set<String> declared) {
        super(Phase.READ);
        addBefore(SoapActionInInterceptor.class.getName());
        this.declared = declared;
    }

    @Override
    public void handleMessage(SoapMessage message) {
        Map<String, List<String>> headers = CastUtils.cast((Map<?, ?>) message.get(Message.PROTOCOL_HEADERS));
        if (headers == null) {
            return;
        }
        headers.entrySet().removeIf(h -> h.getKey().equalsIgnoreCase("SOAPAction") && h.getValue() != null
                && h.getValue().stream().map(UnknownSoapActionInterceptor::unquote).noneMatch(declared::contains));
    }

    private static String unquote(String action) {
        String a = action.trim();
        return a.length() >= 2 && a.startsWith("\"") && a.endsWith("\"") ? a.substring(1, a.length() - 1) : a;
    }
}

package org.nmws.service.security;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Set;
import javax.xml.namespace.QName;
import org.apache.cxf.binding.soap.Soap11;
import org.apache.cxf.binding.soap.SoapFault;
import org.apache.cxf.binding.soap.SoapMessage;
import org.apache.cxf.binding.soap.interceptor.AbstractSoapInterceptor;
import org.apache.cxf.headers.Header;
import org.apache.cxf.phase.Phase;
import org.apache.cxf.transport.http.AbstractHTTPDestination;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * WS-Security 1.0 UsernameToken (PasswordText, over TLS) for SOAP clients that carry their
 * credentials in the envelope rather than in HTTP, checked against the same accounts as HTTP
 * Basic; and the read role that the filter chain leaves to SOAP. Written by hand because CXF's
 * WS-Security module needs WSS4J and OpenSAML, which this build cannot fetch, and a
 * UsernameToken is three elements. PasswordDigest is refused: it needs the password kept in
 * clear on the server.
 */
public final class WsSecurityUsernameToken extends AbstractSoapInterceptor {
    static final String WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
    static final QName SECURITY = new QName(WSSE, "Security");
    private static final String PASSWORD_TEXT = "#PasswordText";
    private static final int MAX_FIELD = 256;

    private final AuthenticationManager authentication;
    private final boolean credentialsOnlyOverTls;

    public WsSecurityUsernameToken(AuthenticationManager authentication, SecurityProperties props) {
        super(Phase.PRE_PROTOCOL);
        this.authentication = authentication;
        this.credentialsOnlyOverTls = props.credentialsOnlyOverTls();
    }

    @Override
    public Set<QName> getUnderstoodHeaders() {
        return Set.of(SECURITY); // mustUnderstand="1" is honoured here
    }

    @Override
    public void handleMessage(SoapMessage message) {
        Header header = message.getHeaders().stream().filter(h -> SECURITY.equals(h.getName())).findFirst().orElse(null);
        if (header != null && header.getObject() instanceof Element security) {
            authenticate(message, security);
        }
        Authentication who = SecurityContextHolder.getContext().getAuthentication();
        if (who == null || who.getAuthorities().stream().noneMatch(a -> "ROLE_READ".equals(a.getAuthority()))) {
            throw fault(message, "authentication required: HTTP Basic or an API key over https, or a WS-Security "
                    + "UsernameToken", "FailedAuthentication");
        }
    }

    private void authenticate(SoapMessage message, Element security) {
        Element token = child(security, "UsernameToken");
        if (token == null) {
            throw fault(message, "the wsse:Security header holds no UsernameToken, the one token nmws accepts",
                    "UnsupportedSecurityToken");
        }
        Element user = child(token, "Username");
        Element password = child(token, "Password");
        if (user == null || password == null) {
            throw fault(message, "a UsernameToken needs a Username and a Password", "InvalidSecurityToken");
        }
        String type = password.getAttribute("Type");
        if (!type.isEmpty() && !type.endsWith(PASSWORD_TEXT)) {
            throw fault(message, "only PasswordText (over https) is accepted, not " + (type.endsWith("#PasswordDigest")
                    ? "PasswordDigest" : "this password type"), "UnsupportedSecurityToken");
        }
        HttpServletRequest http = (HttpServletRequest) message.get(AbstractHTTPDestination.HTTP_REQUEST);
        if (credentialsOnlyOverTls && http != null && !http.isSecure() && !ClearTextCredentials.isLoopback(http.getRemoteAddr())) {
            throw fault(message, "credentials are accepted only over TLS (https) from another host", "FailedAuthentication");
        }
        String name = user.getTextContent().trim();
        String secret = password.getTextContent();
        if (name.length() > MAX_FIELD || secret.length() > MAX_FIELD) {
            throw fault(message, "the user name or password is too long", "FailedAuthentication");
        }
        try {
            Authentication done = authentication.authenticate(UsernamePasswordAuthenticationToken.unauthenticated(name, secret));
            SecurityContext context = SecurityContextHolder.createEmptyContext();
            context.setAuthentication(done);
            SecurityContextHolder.setContext(context);
        } catch (AuthenticationException e) {
            throw fault(message, "the user name or password is wrong", "FailedAuthentication");
        }
    }

    private static Element child(Element parent, String local) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && WSSE.equals(e.getNamespaceURI()) && local.equals(e.getLocalName())) {
                return e;
            }
        }
        return null;
    }

    /**
     * The WS-Security fault code: as the faultcode itself in SOAP 1.1 (as the WS-Security spec
     * says), as the subcode of Sender in SOAP 1.2.
     */
    private static SoapFault fault(SoapMessage message, String text, String wsseCode) {
        QName code = new QName(WSSE, wsseCode, "wsse");
        if (message.getVersion() instanceof Soap11) {
            return new SoapFault(text, code);
        }
        SoapFault f = new SoapFault(text, message.getVersion().getSender());
        f.setSubCode(code);
        return f;
    }
}

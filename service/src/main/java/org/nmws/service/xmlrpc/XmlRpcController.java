package org.nmws.service.xmlrpc;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import org.nmws.service.NmwsProperties;
import org.nmws.service.security.Callers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * XML-RPC at /RPC2: one methodCall per POST, answered with HTTP 200 and a methodResponse
 * (a fault is a methodResponse too, as the XML-RPC spec has it). The body is read up to
 * the configured limit and no further.
 */
@RestController
class XmlRpcController {
    private static final Logger log = LoggerFactory.getLogger(XmlRpcController.class);
    private static final MediaType TEXT_XML = MediaType.parseMediaType("text/xml; charset=UTF-8");

    private final XmlRpcCodec codec;
    private final XmlRpcMethods methods;
    private final int maxBytes;
    private final Callers callers;

    XmlRpcController(XmlRpcCodec codec, XmlRpcMethods methods, NmwsProperties props, Callers callers) {
        this.callers = callers;
        this.codec = codec;
        this.methods = methods;
        this.maxBytes = props.xml().maxBytes();
    }

    @PostMapping(path = "/RPC2")
    ResponseEntity<byte[]> post(HttpServletRequest request) throws IOException {
        byte[] body;
        try (InputStream in = request.getInputStream()) {
            body = in.readNBytes(maxBytes + 1); // one past the limit: the codec reports the oversize
        }
        byte[] reply;
        try {
            reply = XmlRpcCodec.response(methods.call(codec.decode(body), callers.current()));
        } catch (XmlRpcCodec.Fault f) {
            reply = XmlRpcCodec.fault(f.code(), f.getMessage());
        } catch (RuntimeException e) {
            log.error("XML-RPC call failed", e);
            reply = XmlRpcCodec.fault(XmlRpcCodec.INTERNAL_ERROR, "internal error (" + e.getClass().getSimpleName()
                    + "); it has been logged");
        }
        return ResponseEntity.ok().contentType(TEXT_XML).body(reply);
    }
}

package org.nmws.service.transport;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import org.nmws.service.NmwsProperties;
import org.nmws.service.cost.CostXml;
import org.nmws.service.security.Callers;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Plain HTTP: POST an NMWG message (or a GGF v1 networkMeasurementRequest) to /nmwg, get
 * the response in the same dialect. The body is read up
 * to the configured limit and no further, so an oversized post cannot exhaust memory.
 */
@RestController
class HttpNmwgController {
    private final Dialects handler;
    private final int maxBytes;
    private final Callers callers;

    HttpNmwgController(Dialects handler, NmwsProperties props, Callers callers) {
        this.callers = callers;
        this.handler = handler;
        this.maxBytes = props.xml().maxBytes();
    }

    @PostMapping(path = "/nmwg", produces = MediaType.APPLICATION_XML_VALUE)
    ResponseEntity<byte[]> post(HttpServletRequest request) throws IOException {
        byte[] body;
        try (InputStream in = request.getInputStream()) {
            body = in.readNBytes(maxBytes + 1); // one past the limit: the handler reports the oversize
        }
        try {
            return ResponseEntity.ok().contentType(MediaType.APPLICATION_XML).body(handler.handle(body, callers.current()));
        } catch (Dialects.ClientError e) {
            // a cost:costRequest has no NMWG error result: 400 with a cost:costFault saying why
            return ResponseEntity.badRequest().contentType(MediaType.APPLICATION_XML).body(CostXml.fault(e.getMessage()));
        }
    }
}

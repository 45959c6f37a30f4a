package org.nmws.service.security;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** A refusal written directly, with its reason: the error page would hide the message. */
final class Refusals {
    private Refusals() {
    }

    static void write(HttpServletResponse response, int status, String reason) throws IOException {
        response.setStatus(status);
        response.setContentType("text/plain;charset=UTF-8");
        byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}

package org.nmws.service.transport;

import org.springframework.context.annotation.Profile;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The baseline for bench/transports.sh: a POST that Spring MVC answers with a constant,
 * so the cost of the XML stacks shows as a ratio against the same server and connector.
 * Exists only under the bench profile.
 */
@RestController
@Profile("bench")
class BenchEndpoint {
    private static final byte[] OK = "ok\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @PostMapping(path = "/bench/trivial", produces = MediaType.TEXT_PLAIN_VALUE)
    byte[] trivial() {
        return OK;
    }
}

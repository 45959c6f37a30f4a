package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * A responder that admits only sessions proving they hold its shared key (HMAC-SHA256 over
 * its challenge, as OWAMP's authenticated mode), through the real service: with the key
 * (nmws.responder-key-file) a test runs; without it the test is refused and says why.
 */
class AuthenticatedResponderTest {

    @Test
    void aServiceWithTheKeyMeasuresAndOneWithoutIsRefused() throws Exception {
        Path dir = Files.createTempDirectory("nmws-key");
        Path key = dir.resolve("responder.key");
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Files.write(key, secret);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        try (Responder responder = Responder.start("127.0.0.1", List.of("--key-file", key.toString()))) {
            String request = SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "");
            try (Service keyed = Service.start(Files.createTempDirectory("nmws-keyed"), "--nmws.responder-port=" + responder.port,
                    "--nmws.responder-key-file=" + key)) {
                Element m = Service.validatedMessage(keyed.post("/nmwg", request, "application/xml", null).body());
                assertEquals("path.delay.roundTrip", m.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent(),
                        m.getTextContent());
            }
            try (Service unkeyed = Service.start(Files.createTempDirectory("nmws-unkeyed"), "--nmws.responder-port=" + responder.port)) {
                Element m = Service.validatedMessage(unkeyed.post("/nmwg", request, "application/xml", null).body());
                String text = m.getTextContent();
                assertTrue(text.contains("error.") && text.contains("authenticated"), text);
            }
        }
    }
}

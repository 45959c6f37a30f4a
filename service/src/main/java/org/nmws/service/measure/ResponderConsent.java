package org.nmws.service.measure;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Whether a destination runs an nmws responder, which is how a host agrees to be measured.
 * Tests that need no responder (hop list, capacity hop by hop) are held to traceroute's scale
 * towards a host that has not agreed. One connection and one control line: the responder
 * answers any line with NMP/1 (an error, here); anything else is not a responder.
 */
final class ResponderConsent {
    private static final int TIMEOUT_MS = 1000;

    private ResponderConsent() {
    }

    static boolean agrees(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), TIMEOUT_MS);
            s.setSoTimeout(TIMEOUT_MS);
            s.getOutputStream().write("NMP/1 BYE\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            byte[] head = new byte[5];
            InputStream in = s.getInputStream();
            int got = 0;
            while (got < head.length) {
                int n = in.read(head, got, head.length - got);
                if (n < 0) {
                    break;
                }
                got += n;
            }
            return got == head.length && new String(head, StandardCharsets.US_ASCII).equals("NMP/1");
        } catch (IOException | IllegalArgumentException e) {
            return false; // refused, silent, or not a name: no responder has agreed
        }
    }
}

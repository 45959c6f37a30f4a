package org.nmws.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import picocli.CommandLine;

/** nmws hash-password, the documented way to make an account's password (issue 21: it died on a missing class). */
class HashPasswordTest {

    @Test
    void aPasswordOnStandardInputIsPrintedAsABcryptHashThatMatchesIt() {
        InputStream stdin = System.in;
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status;
        try {
            System.setIn(new ByteArrayInputStream("correct horse\n".getBytes(StandardCharsets.UTF_8)));
            CommandLine cli = NmwsCli.commandLine();
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(err, true));
            status = cli.execute("hash-password");
        } finally {
            System.setIn(stdin);
        }
        assertEquals(0, status, err.toString());
        String line = out.toString().trim();
        assertTrue(line.startsWith("{bcrypt}$2a$10$"), line);
        assertTrue(new BCryptPasswordEncoder().matches("correct horse", line.substring("{bcrypt}".length())), line);
    }
}

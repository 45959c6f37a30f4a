package org.nmws.service.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The cluster URL the opensearch archiver and the grid both read: credentials out of the base, decoded once. */
class ClusterUrlTest {

    private static String basic(String credentials) {
        return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void credentialsInTheUrlAreDecodedOnceAndLeftOutOfTheBase() {
        ClusterUrl c = ClusterUrl.parse("https://admin:p%40ss+word@os.example.org:9200/prefix//", null, null, "x");
        assertEquals("https://os.example.org:9200/prefix/", c.base().toString());
        assertEquals(basic("admin:p@ss+word"), c.authorization(), "%40 is '@'; a '+' stays a '+'");
        assertEquals(basic("u:p"), ClusterUrl.parse("http://127.0.0.1:9200", "u", "p", "x").authorization());
        assertEquals(basic("admin:p@ss+word"), ClusterUrl.parse("https://admin:p%40ss+word@h", "u", "p", "x").authorization(),
                "the URL's credentials win");
        assertNull(ClusterUrl.parse("http://h:9200", null, null, "x").authorization());
    }

    @Test
    void aUrlThatIsNoneIsRefusedWithoutRepeatingIt() {
        for (String bad : new String[] {"ftp://u:secret@h", "https://u:secret@", "http://u:secret@h:9200/a b", "secret"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterUrl.parse(bad, null, null,
                    "nmws.grid.opensearch-url"));
            assertFalse(e.getMessage().contains("secret"), e.getMessage());
        }
    }
}

package org.nmws.service.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.cxf.binding.soap.Soap11;
import org.apache.cxf.binding.soap.Soap12;
import org.apache.cxf.binding.soap.SoapVersion;
import org.junit.jupiter.api.Test;

/**
 * The byte scan may only ever say "fine" where the streaming check finds nothing wrong: every
 * document here, and every cut and one-byte change of them, is read by both.
 */
class EnvelopeScanTest {
    private static final String S11 = "http://schemas.xmlsoap.org/soap/envelope/";
    private static final String S12 = "http://www.w3.org/2003/05/soap-envelope";
    private static final String MSG = "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"EchoRequest\" id=\"b\">"
            + "<nmwg:metadata id=\"m\"><nmwg:eventType>http://schemas.perfsonar.net/tools/admin/echo/2.0</nmwg:eventType>"
            + "</nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";

    private static String env(String ns, String body) {
        return "<S:Envelope xmlns:S=\"" + ns + "\"><S:Body>" + body + "</S:Body></S:Envelope>";
    }

    /** Documents the scan reads whole and passes. */
    private static final List<String> FINE = List.of(
            env(S11, MSG),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- a client's comment -->\n" + env(S11, MSG),
            "<soapenv:Envelope xmlns:soapenv='" + S11 + "' xmlns:x='urn:x'>\n  <soapenv:Header><x:h a='1>2'/><x:t>text &amp; more</x:t></soapenv:Header>\n"
                    + "  <soapenv:Body>\n    " + MSG + "\n  </soapenv:Body>\n</soapenv:Envelope>",
            "<Envelope xmlns=\"" + S11 + "\"><Body><m xmlns=\"urn:m\"><![CDATA[<a><b>]]><!-- <c> --><?pi <d>?></m></Body></Envelope>",
            "<a:Envelope xmlns:a=\"" + S11 + "\"><b:Body xmlns:b=\"" + S11 + "\"><x/></b:Body></a:Envelope>",
            "\uFEFF" + env(S11, "<only/>"),
            "<?xml version='1.0' encoding='utf-8' standalone='yes'?>" + env(S11, MSG));

    /** Documents the scan must not pass: the check refuses them, or leaves them to CXF. */
    private static final List<String> NOT_FINE = List.of(
            env(S11, ""),
            env(S11, "<a/><b/>"),
            env(S11, MSG + "<!-- x -->" + MSG),
            env(S11, "text only"),
            "<S:Envelope xmlns:S=\"" + S11 + "\"><S:Header/></S:Envelope>",
            "<S:Envelope xmlns:S=\"" + S11 + "\"><S:Body/></S:Envelope>",
            "<S:Envelope xmlns:S=\"urn:not-soap\"><S:Body>" + MSG + "</S:Body></S:Envelope>",
            "<S:Envelope xmlns:S=\"" + S11 + "\"><S:Body xmlns:S=\"urn:other\">" + MSG + "</S:Body></S:Envelope>",
            "<!DOCTYPE x [<!ENTITY e \"y\">]>" + env(S11, MSG),
            "<S:Envelope xmlns:S=\"http://schemas.xmlsoap.org/soap/envelope&#47;\"><S:Body><a/></S:Body></S:Envelope>",
            "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\"/>",
            env(S11, "<a><b></a>").substring(0, 60),
            // XML 1.1 reads NEL (U+0085) as a line end: the Body's own declaration would then rebind S
            "<?xml version=\"1.1\"?><S:Envelope xmlns:S=\"" + S11 + "\"><S:Body a=\"1\"\u0085xmlns:S=\"urn:other\"><x/></S:Body></S:Envelope>",
            "<S:Envelope xmlns:S=\"" + S11 + "\"><S:Body a=\"1\"xmlns:S=\"urn:other\"><x/></S:Body></S:Envelope>",
            "<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?>" + env(S11, MSG),
            "<?xml version=\"1.1\"?>" + env(S11, MSG));

    @Test
    void passesTheCommonFormsAndAgreesWithTheStream() {
        for (String d : FINE) {
            byte[] b = d.getBytes(StandardCharsets.UTF_8);
            assertTrue(EnvelopeScan.surelyOneBodyElement(b, b.length, null, S11), d);
            assertNull(OneBodyElement.check(b, null, Soap11.getInstance()), d);
        }
        byte[] twelve = env(S12, MSG).getBytes(StandardCharsets.UTF_8);
        assertTrue(EnvelopeScan.surelyOneBodyElement(twelve, twelve.length, "utf-8", S12));
        assertFalse(EnvelopeScan.surelyOneBodyElement(twelve, twelve.length, null, S11), "a 1.2 envelope is no 1.1 one");
    }

    @Test
    void leavesEverythingElseToTheStream() {
        for (String d : NOT_FINE) {
            byte[] b = d.getBytes(StandardCharsets.UTF_8);
            assertFalse(EnvelopeScan.surelyOneBodyElement(b, b.length, null, S11), d);
        }
        assertNotNull(OneBodyElement.check(env(S11, "<a/><b/>").getBytes(StandardCharsets.UTF_8), null, Soap11.getInstance()));
        byte[] utf16 = env(S11, MSG).getBytes(StandardCharsets.UTF_16);
        assertFalse(EnvelopeScan.surelyOneBodyElement(utf16, utf16.length, null, S11));
        byte[] ok = env(S11, MSG).getBytes(StandardCharsets.UTF_8);
        assertFalse(EnvelopeScan.surelyOneBodyElement(ok, ok.length, "UTF-16", S11), "a charset that is not ASCII's is not read");
        assertFalse(EnvelopeScan.surelyOneBodyElement(ok, ok.length - 20, null, S11), "the length bounds the scan");
    }

    /** Every prefix, and random one-byte changes, of every document: the scan passes none the stream would refuse. */
    @Test
    void neverPassesWhatTheStreamRefuses() {
        List<String> all = new ArrayList<>(FINE);
        all.addAll(NOT_FINE);
        Random random = new Random(20);
        byte[] ascii = "<>/='\" !-?[]:&Sx".getBytes(StandardCharsets.US_ASCII);
        byte[] alphabet = java.util.Arrays.copyOf(ascii, ascii.length + 2);
        alphabet[ascii.length] = (byte) 0xC2; // with 0x85: NEL in UTF-8
        alphabet[ascii.length + 1] = (byte) 0x85;
        int passed = 0;
        for (String d : all) {
            byte[] full = d.getBytes(StandardCharsets.UTF_8);
            for (int cut = 0; cut <= full.length; cut++) {
                passed += agree(java.util.Arrays.copyOf(full, cut));
            }
            for (int n = 0; n < 2000; n++) {
                byte[] m = full.clone();
                m[random.nextInt(m.length)] = alphabet[random.nextInt(alphabet.length)];
                passed += agree(m);
            }
        }
        assertTrue(passed > 1000, "the mutations kept enough passing documents to mean something: " + passed);
    }

    private static int agree(byte[] d) {
        for (SoapVersion v : List.of(Soap11.getInstance(), Soap12.getInstance())) {
            if (EnvelopeScan.surelyOneBodyElement(d, d.length, null, v.getNamespace())) {
                assertEquals(null, OneBodyElement.check(d, null, v), () -> new String(d, StandardCharsets.UTF_8));
                return 1;
            }
        }
        return 0;
    }
}

package org.nmws.tests.lab;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.dom.DOMSource;
import org.nmws.schema.NmwgSchemas;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** A validated NMWG response, read for the figures the lab checks. */
record Nmwg(Document doc, String text) {
    static final String BASE = "http://ggf.org/ns/nmwg/base/2.0/";

    static Nmwg parse(String body) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            Document d = f.newDocumentBuilder().parse(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
            NmwgSchemas.schema().newValidator().validate(new DOMSource(d));
            return new Nmwg(d, body);
        } catch (Exception e) {
            fail("not a valid NMWG response: " + e.getMessage() + "\n" + body);
            throw new AssertionError(e);
        }
    }

    List<String> eventTypes() {
        List<String> out = new ArrayList<>();
        NodeList nl = doc.getElementsByTagNameNS(BASE, "eventType");
        for (int i = 0; i < nl.getLength(); i++) {
            out.add(nl.item(i).getTextContent().trim());
        }
        return out;
    }

    /** A named figure: an nmws figure, a datum with name/value (PingER style) or an attribute of a summary datum. */
    double figure(String name) {
        NodeList figures = doc.getElementsByTagNameNS("http://nmws.org/ns/result/1.0/", "figure");
        for (int i = 0; i < figures.getLength(); i++) {
            Element e = (Element) figures.item(i);
            if (name.equals(e.getAttribute("name"))) {
                return Double.parseDouble(e.getAttribute("value"));
            }
        }
        NodeList all = doc.getElementsByTagNameNS("*", "datum");
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            if (name.equals(e.getAttribute("name"))) {
                return Double.parseDouble(e.getAttribute("value"));
            }
            if (e.hasAttribute(name) && !e.hasAttribute("seqNum")) {
                return Double.parseDouble(e.getAttribute(name));
            }
        }
        fail("no figure '" + name + "' in:\n" + text);
        return Double.NaN;
    }

    /** An attribute of the clock of the environment's host in the given role (src, dst), or null. */
    String clock(String role, String attribute) {
        NodeList hosts = doc.getElementsByTagNameNS("http://nmws.org/ns/environment/1.0/", "host");
        for (int i = 0; i < hosts.getLength(); i++) {
            Element h = (Element) hosts.item(i);
            NodeList clocks = h.getElementsByTagNameNS("http://nmws.org/ns/environment/1.0/", "clock");
            if (role.equals(h.getAttribute("role")) && clocks.getLength() > 0) {
                Element c = (Element) clocks.item(0);
                return c.hasAttribute(attribute) ? c.getAttribute(attribute) : null;
            }
        }
        return null;
    }
}

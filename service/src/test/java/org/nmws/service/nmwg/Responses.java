package org.nmws.service.nmwg;

import org.nmws.service.observation.Namespaces;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.transform.stream.StreamSource;
import org.nmws.schema.NmwgSchemas;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** Reads NMWG responses in tests, and checks each against the project's XSDs first. */
public record Responses(Document doc) {

    public static Responses validated(byte[] bytes) {
        try {
            NmwgSchemas.schema().newValidator().validate(new StreamSource(new ByteArrayInputStream(bytes)));
            return new Responses(SafeXml.hardenedFactory().newDocumentBuilder().parse(new ByteArrayInputStream(bytes)));
        } catch (Exception e) {
            fail("response does not validate against the nmws XSDs: " + e.getMessage() + "\n" + new String(bytes));
            throw new AssertionError(e);
        }
    }

    public String type() {
        return doc.getDocumentElement().getAttribute("type");
    }

    public List<String> eventTypes() {
        return texts(Namespaces.BASE, "eventType");
    }

    public List<String> resultDatums() {
        return texts(Namespaces.RESULT, "datum");
    }

    public List<Element> elements(String ns, String localName) {
        List<Element> out = new ArrayList<>();
        NodeList nl = doc.getElementsByTagNameNS(ns, localName);
        for (int i = 0; i < nl.getLength(); i++) {
            out.add((Element) nl.item(i));
        }
        return out;
    }

    /** The value of a PingER summary datum by name, from the first data element that has it. */
    public String pinger(String name) {
        for (Element e : elements(Namespaces.PINGER, "datum")) {
            if (name.equals(e.getAttribute("name"))) {
                return e.getAttribute("value");
            }
        }
        return null;
    }

    private List<String> texts(String ns, String localName) {
        List<String> out = new ArrayList<>();
        for (Element e : elements(ns, localName)) {
            out.add(e.getTextContent().trim());
        }
        return out;
    }
}

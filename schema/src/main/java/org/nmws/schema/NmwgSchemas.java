package org.nmws.schema;

import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.transform.Source;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import org.xml.sax.SAXException;

/**
 * The project's own XSDs as one {@link Schema}, for checking that what nmws emits is
 * what it promises. Only the bundled files are read: the factory may resolve imports
 * from this jar and nowhere else.
 */
public final class NmwgSchemas {
    /** The XSD files under nmws/xsd/, imports last so that includes resolve. */
    public static final List<String> FILES = List.of(
            "nmwg-base.xsd", "nmwg-topology.xsd", "nmwg-result.xsd", "nmwg-time.xsd",
            "nmwg-select.xsd", "nmwg-ping.xsd", "nmwg-pinger.xsd", "nmwg-owamp-summary.xsd", "nmwg-owamp-owd.xsd",
            "nmwg-iperf.xsd", "nmwg-traceroute.xsd", "nmws-result.xsd", "nmws-environment.xsd", "nmws-cost.xsd");

    private static volatile Schema schema;

    private NmwgSchemas() {
    }

    public static Schema schema() {
        Schema s = schema;
        if (s == null) {
            synchronized (NmwgSchemas.class) {
                if (schema == null) {
                    schema = load();
                }
                s = schema;
            }
        }
        return s;
    }

    private static Schema load() {
        try {
            SchemaFactory f = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            f.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "file,jar:file");
            List<Source> sources = new ArrayList<>();
            for (String name : FILES) {
                URL url = NmwgSchemas.class.getResource("/nmws/xsd/" + name);
                if (url == null) {
                    throw new IllegalStateException("schema " + name + " is missing from the classpath");
                }
                sources.add(new StreamSource(url.toExternalForm()));
            }
            return f.newSchema(sources.toArray(new Source[0]));
        } catch (SAXException e) {
            throw new IllegalStateException("the bundled NMWG schemas do not load: " + e.getMessage(), e);
        }
    }
}

package org.nmws.service.v1;

import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Namespaces;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Another mesh point's NMWG v2 answer to a forwarded test, read as v1 reports a measurement:
 * its named figures (every datum or figure with a name and a numeric value), its environment
 * and the key the point gave it, or its error as a fault. The point wrote the answer with the
 * same writer as this one, so its figure names are this service's.
 */
final class ForwardedAnswer {
    private ForwardedAnswer() {
    }

    static V1Outcome.Measurement measurement(String point, Element message) throws V1Fault {
        NodeList eventTypes = message.getElementsByTagNameNS(Namespaces.BASE, "eventType");
        for (int i = 0; i < eventTypes.getLength(); i++) {
            String et = eventTypes.item(i).getTextContent().trim();
            if (et.startsWith("error.")) {
                throw new V1Fault(et.startsWith("error.mp.busy") || et.startsWith("error.mp.rate_limited")
                        ? V1Fault.Kind.TryAgain : V1Fault.Kind.Communication, et, "point " + point + " answered " + et
                        + ": " + message.getTextContent().trim(), 0);
            }
        }
        Map<String, Double> statistics = new LinkedHashMap<>();
        NodeList data = message.getElementsByTagNameNS(Namespaces.BASE, "data");
        for (int i = 0; i < data.getLength(); i++) {
            figures((Element) data.item(i), statistics);
        }
        if (statistics.isEmpty()) {
            throw new V1Fault(V1Fault.Kind.Communication, "point " + point + " answered no figures");
        }
        NodeList env = message.getElementsByTagNameNS(Namespaces.ENVIRONMENT, "environment");
        String key = null;
        NodeList params = message.getElementsByTagNameNS(Namespaces.BASE, "parameter");
        for (int i = 0; i < params.getLength(); i++) {
            Element p = (Element) params.item(i);
            if ("maKey".equals(p.getAttribute("name"))) {
                key = point + ":" + p.getTextContent().trim();
                break;
            }
        }
        return new V1Outcome.Measurement("nmprobe@" + point, null, null, null, Map.of(), statistics, Map.of(),
                env.getLength() > 0 ? (Element) env.item(0) : null, key);
    }

    /** Name/value figures under an element, first of each name kept (per-frame datums carry no name). */
    private static void figures(Element e, Map<String, Double> out) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c) {
                String name = c.getAttribute("name");
                String value = c.getAttribute("value");
                if (!name.isEmpty() && !value.isEmpty()) {
                    try {
                        out.putIfAbsent(name, Double.parseDouble(value));
                    } catch (NumberFormatException notAFigure) {
                        // a text-valued datum (a host name, a flag): v1 statistics are numbers
                    }
                }
                figures(c, out);
            }
        }
    }
}

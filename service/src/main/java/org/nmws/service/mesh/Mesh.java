package org.nmws.service.mesh;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A mesh of measurement points, as one JSON file every point loads: the points (name,
 * service URL, the address tests reach it at, its responder's port, optionally an API key
 * to forward requests with) and the test groups (a characteristic with its parameters and
 * period, between all pairs or listed ones). Each point runs its share: the groups' pairs
 * whose source it is.
 */
public record Mesh(List<Point> points, List<Group> groups) {
    public static final Mesh NONE = new Mesh(List.of(), List.of());

    public Mesh {
        points = points == null ? List.of() : List.copyOf(points);
        groups = groups == null ? List.of() : List.copyOf(groups);
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Point p : points) {
            if (p.name() == null || p.name().isBlank() || !names.add(p.name())) {
                throw new IllegalArgumentException("mesh: every point needs a name of its own (" + p.name() + ")");
            }
            if (p.url() == null || !p.url().matches("https?://.+")) {
                throw new IllegalArgumentException("mesh: point " + p.name() + " needs the http(s) URL of its service");
            }
            if (p.address() == null || p.address().isBlank()) {
                throw new IllegalArgumentException("mesh: point " + p.name() + " needs the address tests reach it at");
            }
        }
        for (Group g : groups) {
            if (g.name() == null || g.characteristic() == null || (g.period() == null && !Boolean.TRUE.equals(g.continuous()))) {
                throw new IllegalArgumentException("mesh: a group needs a name, a characteristic and a period (or continuous)");
            }
            for (List<String> pair : g.pairs() == null ? List.<List<String>>of() : g.pairs()) {
                if (pair.size() != 2 || !names.contains(pair.get(0)) || !names.contains(pair.get(1))) {
                    throw new IllegalArgumentException("mesh: group " + g.name() + " pairs " + pair + " that are not two points");
                }
            }
        }
    }

    /**
     * @param responderPort the responder's control port there (0: the service's default)
     * @param apiKey sent when forwarding a request to this point (its service must give it measure)
     * @param endpoint the SOAP address requests are forwarded to, for an NMWG service that is not
     *        nmws (a perfSONAR measurement point, say); unset: url + /services/MeasurementService
     */
    public record Point(String name, String url, String address, int responderPort, String apiKey, String endpoint) {
        public String soapAddress() {
            return endpoint != null && !endpoint.isBlank() ? endpoint : url.replaceAll("/+$", "") + "/services/MeasurementService";
        }
    }

    /**
     * @param pairs [src, dst] point names; absent means every ordered pair
     * @param testClass exclusive, normal or background; absent means the characteristic's
     * @param continuous a one-way stream that never stops, kept a minute at a time (powstream)
     */
    public record Group(String name, String characteristic, Map<String, String> parameters, String period, String slip,
                        List<List<String>> pairs, String testClass, Boolean continuous) {
    }

    public static Mesh load(Path file) throws IOException {
        return new ObjectMapper().readValue(Files.readAllBytes(file), Mesh.class);
    }

    /** The point a host names (a point's name or its address), if it is one. */
    public Optional<Point> point(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return points.stream().filter(p -> p.name().toLowerCase(Locale.ROOT).equals(h) || p.address().equalsIgnoreCase(h))
                .findFirst();
    }

    /** The pairs of a group whose source is the named point: [src, dst] points. */
    public List<Point[]> pairsFrom(Group g, String self) {
        List<Point[]> out = new ArrayList<>();
        if (g.pairs() == null) {
            for (Point src : points) {
                for (Point dst : points) {
                    if (src != dst && src.name().equals(self)) {
                        out.add(new Point[] {src, dst});
                    }
                }
            }
        } else {
            for (List<String> pair : g.pairs()) {
                if (pair.get(0).equals(self)) {
                    out.add(new Point[] {point(pair.get(0)).orElseThrow(), point(pair.get(1)).orElseThrow()});
                }
            }
        }
        return out;
    }
}

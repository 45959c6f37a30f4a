package org.nmws.service.archiver;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.nmws.service.archive.ArchiveTarget;

/**
 * pScheduler's http archiver: the archive body POSTed (or PUT, {@code op}) to {@code _url}
 * with the spec's headers, as to perfSONAR's Logstash. A 2xx answer is the acknowledgement;
 * 408, 429 and 5xx are tried again, any other 4xx is the archive refusing the body for good.
 * The items of a batch are sent at once (HTTP/1.1, up to a few connections), so one slow
 * answer does not serialise the batch.
 */
final class HttpSender implements Sender {
    private final HttpClient http;
    private final URI url;
    private final String method;
    private final Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final Duration timeout;

    HttpSender(ArchiveTarget target) {
        JsonNode d = target.data();
        this.url = URI.create(d.get("_url").asText());
        this.method = d.path("op").asText("post").toUpperCase(java.util.Locale.ROOT);
        this.timeout = d.has("timeout") ? Duration.parse(d.get("timeout").asText()) : Duration.ofSeconds(30);
        for (String h : List.of("headers", "_headers")) {
            d.path(h).fields().forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
        }
        headers.putIfAbsent("Content-Type", "application/json");
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    @Override
    public List<Outcome> send(List<Item> items) {
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (Item i : items) {
            HttpRequest.Builder b = HttpRequest.newBuilder(url).timeout(timeout)
                    .method(method, HttpRequest.BodyPublishers.ofString(i.body().toString(), StandardCharsets.UTF_8));
            headers.forEach(b::header);
            sent.add(http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()));
        }
        List<Outcome> out = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> f : sent) {
            try {
                HttpResponse<String> r = f.join();
                out.add(outcome(r.statusCode(), r.body()));
            } catch (java.util.concurrent.CompletionException e) {
                Throwable c = e.getCause() == null ? e : e.getCause();
                out.add(Outcome.retry(url.getScheme() + "://" + url.getHost() + ":" + url.getPort() + " unreachable: " + c));
            }
        }
        return out;
    }

    static Outcome outcome(int status, String body) {
        if (status >= 200 && status < 300) {
            return Outcome.DELIVERED;
        }
        String why = "HTTP " + status + ": " + clip(body);
        return status == 408 || status == 429 || status >= 500 ? Outcome.retry(why) : Outcome.rejected(why);
    }

    static String clip(String s) {
        if (s == null) {
            return "";
        }
        return s.length() <= 300 ? s : s.substring(0, 300) + "...";
    }

    @Override
    public void close() {
        // HttpClient has no close on Java 17; its connections go with it
    }
}

package org.nmws.service.archive;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * An OpenSearch cluster's URL as pScheduler's archives and nmws's settings give it
 * ({@code https://user:password@host:9200/prefix}): the base every request resolves against,
 * with no credentials in it (it goes into messages and answers), and the Basic authorization
 * they make. One reading for the archiver that writes and the grid that reads.
 *
 * @param base scheme, host, port and path, ending in '/'
 * @param authorization the Authorization header's value, or null
 */
public record ClusterUrl(URI base, String authorization) {

    /**
     * @param url the URL; credentials in it win over user and password
     * @param user a user name given apart, or null
     * @param password its password, or null
     * @param setting what names the URL, for the message when it is not one
     */
    public static ClusterUrl parse(String url, String user, String password, String setting) {
        URI u;
        try {
            u = new URI(url);
        } catch (URISyntaxException e) {
            u = null; // its message would repeat the URL, password and all
        }
        if (u == null || u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
                || u.getHost() == null) {
            throw new IllegalArgumentException(setting + " must be an http or https URL with a host");
        }
        String credentials = user == null ? null : user + ":" + (password == null ? "" : password);
        if (u.getUserInfo() != null) {
            credentials = u.getUserInfo(); // decoded %xx only: a '+' in a password stays a '+'
        }
        String path = u.getRawPath() == null ? "" : u.getRawPath().replaceAll("/+$", "");
        URI base = URI.create(u.getScheme() + "://" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "") + path + "/");
        return new ClusterUrl(base, credentials == null ? null
                : "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
    }
}

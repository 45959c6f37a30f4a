package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.nmws.client.NmwsClient;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The dashboard in a real browser (Debian's chromium through its chromedriver, headless)
 * against the real service and responder: tests are run through the service, and each view's
 * plotted values are compared with what the JSON API says the archive stored. Every page must
 * load without a console error (a refused script, a failed request, an exception); a
 * screenshot of each is kept under target/screenshots/.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardEndToEndTest {
    private static final String POINT = "dash-point";
    private static final String FIGURE = "http://nmws.org/ns/result/1.0/";
    private static final Path SHOTS = Path.of("target", "screenshots");
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private Path dataDir;
    private Path downloads;
    private Responder responder;
    /** Responders of the scheduled paths the grid shows: 127.0.0.3 (fresh) and 127.0.0.5 (stale). */
    private Responder fresh;
    private Responder stale;
    private Service service;
    private ChromeDriver browser;
    private Map<String, Double> scanReply;

    @BeforeAll
    void start() throws Exception {
        dataDir = Files.createTempDirectory("nmws-dashboard");
        Files.createDirectories(SHOTS);
        downloads = Files.createDirectories(SHOTS.resolve("downloads").toAbsolutePath());
        try (var old = Files.list(downloads)) {
            old.forEach(f -> f.toFile().delete());
        }
        responder = Responder.start();
        // stale after one period: dash-stale (every 2 s, stopped) is stale by the time a test looks
        service = Service.start(dataDir, "--nmws.responder-port=" + responder.port, "--nmws.measurement-point=" + POINT,
                "--nmws.grid.stale-after-periods=1");
        scheduledPaths();
        NmwsClient client = NmwsClient.soap11(service.baseUrl);
        client.measure("127.0.0.1", "path.delay.roundTrip", Map.of("count", "200", "interval", "0.002"));
        // on demand, newer than dash-fresh's result on its path: it must not be what the grid shows
        client.measure("127.0.0.3", "path.delay.roundTrip", Map.of("count", "20", "interval", "0.001",
                "port", Integer.toString(fresh.port)));
        // three spacings of 1000-byte frames: the points of throughput against spacing
        for (String interval : List.of("0.0004", "0.0002", "0.0001")) {
            client.measure("127.0.0.1", "path.delay.oneWay", Map.of("count", "2000", "packetSize", "1000", "interval", interval));
        }
        client.measure("127.0.0.1", "path.bandwidth.achievable.TCP", Map.of("timeDuration", "1", "sampleInterval", "0.05"));
        HttpResponse<String> scan = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 20,
                "<nmwg:parameter name=\"packetSizes\">64,512,1024,1472</nmwg:parameter>"), "application/xml", null);
        scanReply = figures(Service.validatedMessage(scan.body()));

        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        ChromeOptions options = new ChromeOptions().setBinary("/usr/bin/chromium")
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1100");
        options.setCapability("goog:loggingPrefs", logs);
        options.setExperimentalOption("prefs", Map.of("download.default_directory", downloads.toString(),
                "download.prompt_for_download", false,
                // three downloads from one page without asking
                "profile.default_content_setting_values.automatic_downloads", 1));
        ChromeDriverService driver = new ChromeDriverService.Builder().usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .usingAnyFreePort().build();
        browser = new ChromeDriver(driver, options);
        // The console check below is only worth something if the console reaches the test.
        browser.executeScript("console.error('nmws: the console is read')");
        assertTrue(browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .anyMatch(e -> e.getMessage().contains("the console is read")), "the browser's console reaches the test");
    }

    @AfterAll
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (service != null) {
            service.close();
        }
        if (responder != null) {
            responder.close();
        }
        if (fresh != null) {
            fresh.close();
        }
        if (stale != null) {
            stale.close();
        }
    }

    /**
     * Three test definitions with real runs, for the grid and the path charts: dash-fresh (once
     * an hour, ran once: fresh), dash-stale (every 2 s, stopped for a while and started again,
     * then stopped: a gap in its line, and stale) and dash-fail (to an address where nothing
     * answers: failing). They end before the on-demand tests start, so none meets another.
     */
    private void scheduledPaths() throws Exception {
        fresh = Responder.start("127.0.0.3");
        stale = Responder.start("127.0.0.5");
        putSchedule("dash-fresh", "127.0.0.3", "PT1H", "\"start\":\"" + Instant.now().plusSeconds(1) + "\",",
                "{\"count\":\"5\",\"interval\":\"0.01\",\"port\":\"" + fresh.port + "\"}");
        String staleParams = "{\"count\":\"10\",\"interval\":\"0.005\",\"port\":\"" + stale.port + "\"}";
        putSchedule("dash-stale", "127.0.0.5", "PT2S", "", staleParams);
        putSchedule("dash-fail", "127.0.0.4", "PT2S", "", "{\"count\":\"3\",\"interval\":\"0.01\"}");
        waitForRuns("dash-stale", "DONE", 2);
        putSchedule("dash-stale", "127.0.0.5", "PT2S", "\"enabled\":false,", staleParams);
        long staleStopped = System.nanoTime();
        waitForRuns("dash-fail", "ended", 2);
        putSchedule("dash-fail", "127.0.0.4", "PT2S", "\"enabled\":false,", "{\"count\":\"3\",\"interval\":\"0.01\"}");
        // dash-stale's gap: at least two periods without a run (stopped 5 s, counted from its stop)
        Thread.sleep(Math.max(0, 5000 - (System.nanoTime() - staleStopped) / 1_000_000));
        int before = runs("dash-stale", "DONE");
        putSchedule("dash-stale", "127.0.0.5", "PT2S", "", staleParams);
        waitForRuns("dash-stale", "DONE", before + 2);
        putSchedule("dash-stale", "127.0.0.5", "PT2S", "\"enabled\":false,", staleParams);
        waitForRuns("dash-fresh", "DONE", 1);
    }

    private void putSchedule(String name, String dst, String period, String extra, String parameters) throws Exception {
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(service.baseUrl + "/api/schedules/" + name))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(
                        "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"" + dst + "\",\"period\":\"" + period + "\","
                                + extra + "\"parameters\":" + parameters + "}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, put.statusCode(), put.body());
    }

    /** How many of a schedule's runs are DONE (or, for "ended", DONE, FAILED or NONSTARTER). */
    private int runs(String name, String status) throws Exception {
        int n = 0;
        for (JsonNode r : api("/api/schedules/" + name + "/runs?limit=100")) {
            String st = r.get("status").asText();
            if (st.equals(status) || status.equals("ended") && List.of("DONE", "FAILED", "NONSTARTER").contains(st)) {
                n++;
            }
        }
        return n;
    }

    private void waitForRuns(String name, String status, int atLeast) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while (runs(name, status) < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertTrue(runs(name, status) >= atLeast, name + ": " + api("/api/schedules/" + name + "/runs?limit=20"));
    }

    /** No view may leave an error in the console: a failed request, a refused resource, an exception. */
    @AfterEach
    void theConsoleHoldsNoErrors(TestInfo test) throws Exception {
        Files.write(SHOTS.resolve(test.getTestMethod().orElseThrow().getName() + ".png"),
                browser.getScreenshotAs(OutputType.BYTES));
        List<String> errors = new ArrayList<>();
        for (LogEntry e : browser.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.WARNING.intValue()) {
                errors.add(e.getLevel() + " " + e.getMessage());
            }
        }
        assertEquals(List.of(), errors, "browser console");
    }

    @Test
    void theMeshGridShowsEachDefinitionsLatestResultWithItsAgeAndStaleAndFailingCellsAsSuch() throws Exception {
        open("#overview");
        JsonNode grid = api("/api/grid");
        // dash-fresh: its own latest result, not the newer on-demand test to the same place
        JsonNode freshDef = definition(grid, "127.0.0.3", "dash-fresh");
        assertEquals("ok", freshDef.get("state").asText(), freshDef.toString());
        JsonNode kept = api("/api/observations/" + freshDef.get("result").get("observationId").asLong());
        JsonNode onDemand = api("/api/observations?test=ROUND_TRIP&dst=127.0.0.3&limit=10").get("results");
        JsonNode newest = onDemand.get(onDemand.size() - 1);
        assertTrue(newest.get("definition").isNull(), "the newest result to 127.0.0.3 was asked for on demand: " + newest);
        assertTrue(Instant.parse(newest.get("start").asText()).isAfter(Instant.parse(kept.get("start").asText())));
        WebElement freshCell = browser.findElement(By.cssSelector("#definition-grid td[data-src='" + POINT + "'][data-dst='127.0.0.3']"));
        WebElement freshBlock = freshCell.findElement(By.cssSelector(".definition[data-name='dash-fresh']"));
        assertEquals(kept.get("summary").get("medianRtt").asDouble(), shown(freshBlock, "rttMs"), 0.0);
        double age = freshDef.get("result").get("ageSeconds").asDouble();
        // the page read its grid a moment before this test did: its age is younger by that moment
        double between = (Instant.parse(grid.get("generated").asText()).toEpochMilli() - Instant.parse(
                browser.findElement(By.id("definition-grid")).getAttribute("data-generated")).toEpochMilli()) / 1000.0;
        assertEquals(age - between, Double.parseDouble(freshBlock.findElement(By.cssSelector(".age")).getAttribute("data-age")),
                0.0015);
        assertTrue(freshBlock.findElement(By.cssSelector(".age")).getText().endsWith(" ago"));
        // coloured by the thresholds as it is fresh
        double rtt = kept.get("summary").get("medianRtt").asDouble();
        double loss = kept.get("summary").get("lossPercent").asDouble();
        assertEquals(level(rtt, 50, 150, loss, 0.1, 1, Double.MAX_VALUE, 100, 10), freshCell.getAttribute("class"));
        setThreshold("threshold-rttMs-0", rtt / 2);
        setThreshold("threshold-rttMs-1", rtt * 2);
        assertEquals("warn", freshCell.getAttribute("class"), "a warning threshold below its RTT turns the fresh cell to warn");
        // dash-stale stopped running: its cell is stale, not green, whatever its figures
        WebElement staleCell = browser.findElement(By.cssSelector("#definition-grid td[data-src='" + POINT + "'][data-dst='127.0.0.5']"));
        JsonNode staleDef = definition(api("/api/grid"), "127.0.0.5", "dash-stale");
        assertEquals("stale", staleDef.get("state").asText(), staleDef.toString());
        assertEquals("stale", staleCell.getAttribute("class"));
        assertEquals("STALE, DISABLED", staleCell.findElement(By.cssSelector(".state-words")).getText());
        // dash-fail never gave a result: failing, with no figures
        WebElement failCell = browser.findElement(By.cssSelector("#definition-grid td[data-src='" + POINT + "'][data-dst='127.0.0.4']"));
        assertEquals("failing", failCell.getAttribute("class"));
        assertEquals("failing", definition(grid, "127.0.0.4", "dash-fail").get("state").asText());
        assertEquals("no result yet", failCell.findElement(By.cssSelector(".age")).getText());
        // the newest result of any test per pair is still there, folded, on-demand tests included
        WebElement latest = browser.findElement(By.cssSelector("#mesh-grid td[data-src='" + POINT + "'][data-dst='127.0.0.3']"));
        browser.findElement(By.cssSelector("#latest-any summary")).click();
        assertEquals(newest.get("summary").get("medianRtt").asDouble(), shown(latest, "rttMs"), 0.0);
    }

    private static JsonNode definition(JsonNode grid, String dst, String name) {
        for (JsonNode c : grid.get("cells")) {
            if (c.get("dst").asText().equals(dst)) {
                for (JsonNode d : c.get("definitions")) {
                    if (d.get("name").asText().equals(name)) {
                        return d;
                    }
                }
            }
        }
        throw new AssertionError("no definition " + name + " to " + dst + " in " + grid);
    }

    @Test
    void thePathsViewListsEveryStoredSeriesWithItsCount() throws Exception {
        JsonNode paths = api("/api/paths");
        open("#paths");
        List<WebElement> rows = browser.findElements(By.cssSelector("#paths tr:not(:first-child)"));
        assertEquals(paths.size(), rows.size());
        for (int i = 0; i < rows.size(); i++) {
            List<WebElement> td = rows.get(i).findElements(By.tagName("td"));
            assertEquals(paths.get(i).get("test").asText(), td.get(1).getText());
            assertEquals(paths.get(i).get("dst").asText(), td.get(3).getText());
            assertEquals(paths.get(i).get("count").asText(), td.get(5).getText());
        }
        rows.get(0).findElement(By.tagName("a")).click();
        new WebDriverWait(browser, Duration.ofSeconds(15)).until(d -> "path".equals(d.findElement(By.id("view"))
                .getAttribute("data-view")) && "ready".equals(d.findElement(By.id("view")).getAttribute("data-state")));
    }

    @Test
    void thePathViewDrawsOneSeriesPerSetOfParametersAndNoEmptyOnes() throws Exception {
        open("#path?dst=127.0.0.1");
        // three streams asked for on demand with three spacings: three series, not one sawtooth
        List<Map<String, Object>> owd = plotted("path-owd");
        assertEquals(3, owd.size(), owd.toString());
        List<Double> drawn = new ArrayList<>();
        for (Map<String, Object> s : owd) {
            String name = (String) s.get("name");
            assertTrue(name.startsWith("on demand (") && name.matches(".*\\binterval=0\\.000[124]\\b.*")
                    && !name.contains("packetSize"), "named by the parameters in which the three differ: " + name);
            assertEquals("scatter", s.get("type"), "results asked for on demand are points, not a line");
            drawn.addAll(ys(s));
        }
        List<Double> stored = new ArrayList<>(values(results("path.delay.oneWay"), "medianDelayMs"));
        drawn.sort(null);
        stored.sort(null);
        assertEquals(stored, drawn);
        List<Double> rtt = new ArrayList<>();
        plotted("path-rtt").forEach(s -> rtt.addAll(ys(s)));
        assertEquals(values(results("path.delay.roundTrip"), "medianRtt"), rtt);
        assertEquals(values(results("path.bandwidth.achievable.TCP"), "throughputMbps"), ys(plotted("path-throughput").get(0)));
        for (String plot : List.of("path-rtt", "path-owd", "path-loss", "path-throughput")) {
            for (Map<String, Object> s : plotted(plot)) {
                assertTrue(!ys(s).isEmpty(), plot + ": a legend names only series with data: " + s.get("name"));
            }
        }
        assertEquals(6, browser.findElements(By.cssSelector("#tests a[data-test]")).size(),
                "one round trip, three streams, one TCP test and one scan");
        for (WebElement a : browser.findElements(By.cssSelector("#tests a[data-test]"))) {
            assertTrue(a.getText().matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d"), "a human time: " + a.getText());
        }
    }

    /**
     * dash-stale ran every 2 s, was stopped for 5 s, ran again: its results are one line named by
     * the definition and its parameters, broken where the runs were missing, on axes bounded by
     * the 1st and 99th percentiles; the time range, log scale and zoom controls work on it.
     */
    @Test
    void aDefinitionsLineBreaksWhereRunsAreMissingAndTheControlsRangeScaleAndZoomIt() throws Exception {
        open("#path?dst=127.0.0.5&range=1h");
        JsonNode answer = api("/api/observations?test=ROUND_TRIP&dst=127.0.0.5&limit=1000");
        JsonNode obs = answer.get("results");
        List<Map<String, Object>> rtt = plotted("path-rtt");
        assertEquals(1, rtt.size(), rtt.toString());
        assertEquals("dash-stale (count=10 interval=0.005 port=" + stale.port + ")", rtt.get(0).get("name"));
        assertEquals("line", rtt.get(0).get("type"));
        // the stored values in time order, with a null wherever two results are more than
        // 1.5 periods (3 s) apart: the gap
        List<Object> expected = new ArrayList<>();
        Instant previous = null;
        int gaps = 0;
        for (JsonNode o : obs) {
            assertEquals("dash-stale", o.get("definition").asText());
            Instant at = Instant.parse(o.get("start").asText());
            if (previous != null && Duration.between(previous, at).toMillis() > 3000) {
                expected.add(null);
                gaps++;
            }
            expected.add(o.get("summary").get("medianRtt").asDouble());
            previous = at;
        }
        assertTrue(gaps >= 1, "dash-stale was stopped for 5 s: " + obs);
        List<Object> drawn = new ArrayList<>();
        for (List<Object> p : points(rtt.get(0))) {
            drawn.add(p.get(1) == null ? null : ((Number) p.get(1)).doubleValue());
        }
        assertEquals(expected, drawn);
        // robust axes: the 1st to 99th percentile, widened by a tenth of their span
        List<Double> v = new ArrayList<>(values(obs, "medianRtt"));
        v.sort(null);
        double lo = quantile(v, 0.01);
        double hi = quantile(v, 0.99);
        double pad = hi > lo ? (hi - lo) / 10 : hi != 0 ? Math.abs(hi) / 10 : 1;
        Map<String, Object> y = yAxis("path-rtt");
        assertEquals(hi + pad, ((Number) y.get("max")).doubleValue(), 1e-12);
        assertEquals(lo - pad < 0 && lo >= 0 ? 0 : lo - pad, ((Number) y.get("min")).doubleValue(), 1e-12);
        // and one spike among a hundred steady values is marked off the scale instead of flattening them
        @SuppressWarnings("unchecked")
        Map<String, Object> b = (Map<String, Object>) ((JavascriptExecutor) browser).executeScript(
                "const v = []; for (let i = 0; i < 100; i++) v.push(0.1 + (i % 10) / 1000); v.push(50);"
                        + "return robustBounds(v, false);");
        assertTrue(((Number) b.get("max")).doubleValue() < 1, "a 50 ms spike is off the scale: " + b);
        // empty charts say so in words
        assertEquals("No one-way delay results on this path in the last hour.",
                browser.findElement(By.cssSelector("#plot-path-owd .empty")).getText());
        assertEquals(0, browser.findElements(By.cssSelector("#plot-path-owd canvas")).size());

        // zoom one chart, and the others follow
        ((JavascriptExecutor) browser).executeScript(
                "window.nmws.charts['path-rtt'].dispatchAction({ type: 'dataZoom', start: 40, end: 90 })");
        assertEquals(40.0, zoomStart("path-loss"), 0.0, "the charts zoom together");
        browser.findElement(By.id("zoom-reset")).click();
        assertEquals(0.0, zoomStart("path-loss"), 0.0);
        // the log scale
        browser.findElement(By.id("log-scale")).click();
        waitReady();
        assertEquals("log", yAxis("path-rtt").get("type"));
        assertTrue(browser.getCurrentUrl().contains("log=1"), browser.getCurrentUrl());
        // the time range: the last hour holds them all, as the whole archive does
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("range"))).selectByValue("all");
        waitReady();
        assertTrue(browser.getCurrentUrl().contains("range=all"), browser.getCurrentUrl());
        assertEquals(expected.stream().filter(x -> x != null).count(), ys(plotted("path-rtt").get(0)).size());
        // a picked range pins the time axis to it; without one the axis fits the day's results
        // (the tutorial's first minutes were a vertical line at the right edge of a day)
        open("#path?dst=127.0.0.5&range=1h");
        assertTrue(xAxis("path-rtt").get("min") instanceof Number, xAxis("path-rtt").toString());
        open("#path?dst=127.0.0.5");
        assertEquals(null, xAxis("path-rtt").get("min"), xAxis("path-rtt").toString());
        assertEquals(expected.stream().filter(x -> x != null).count(), ys(plotted("path-rtt").get(0)).size());
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> xAxis(String plot) {
        return (Map<String, Object>) ((JavascriptExecutor) browser)
                .executeScript("return window.nmws.charts[arguments[0]].getOption().xAxis[0]", plot);
    }

    @Test
    void aTestThatIsNotStoredIsSaidSoInWords() throws Exception {
        browser.get(service.baseUrl + "/dashboard/#test?id=999999999");
        WebElement view = browser.findElement(By.id("view"));
        new WebDriverWait(browser, Duration.ofSeconds(15)).until(d -> !"loading".equals(view.getAttribute("data-state")));
        assertEquals("failed", view.getAttribute("data-state"));
        String said = browser.findElement(By.id("message")).getText();
        assertEquals("No stored test has number 999999999: it may have been removed by retention.", said);
        // the browser logs the refused fetch itself: that 404 and the view's own line, nothing else
        for (LogEntry e : browser.manage().logs().get(LogType.BROWSER)) {
            assertTrue(e.getMessage().contains("404") || e.getMessage().contains("No stored test has number"), e.getMessage());
        }
    }

    private void waitReady() {
        new WebDriverWait(browser, Duration.ofSeconds(15)).until(d -> "ready".equals(d.findElement(By.id("view"))
                .getAttribute("data-state")));
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> plotted(String plot) {
        List<Map<String, Object>> all = (List<Map<String, Object>>) ((JavascriptExecutor) browser)
                .executeScript("return window.nmws.plotted(arguments[0])", plot);
        assertNotNull(all, plot + " is drawn");
        return all;
    }

    @SuppressWarnings("unchecked")
    private static List<List<Object>> points(Map<String, Object> series) {
        return (List<List<Object>>) series.get("data");
    }

    private static List<Double> ys(Map<String, Object> series) {
        List<Double> out = new ArrayList<>();
        for (List<Object> p : points(series)) {
            if (p.get(1) != null) {
                out.add(((Number) p.get(1)).doubleValue());
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> yAxis(String plot) {
        return (Map<String, Object>) ((JavascriptExecutor) browser)
                .executeScript("return window.nmws.charts[arguments[0]].getOption().yAxis[0]", plot);
    }

    private double zoomStart(String plot) {
        return ((Number) ((JavascriptExecutor) browser)
                .executeScript("return window.nmws.charts[arguments[0]].getOption().dataZoom[0].start", plot)).doubleValue();
    }

    /** R-7, as the dashboard computes it. */
    private static double quantile(List<Double> sorted, double q) {
        double h = (sorted.size() - 1) * q;
        int lo = (int) Math.floor(h);
        return sorted.get(lo) + (h - lo) * (sorted.get(Math.min(lo + 1, sorted.size() - 1)) - sorted.get(lo));
    }

    @Test
    void aRoundTripTestShowsItsHistogramsAndTimeSequenceFromTheStoredFrames() throws Exception {
        JsonNode rr = latest("path.delay.roundTrip");
        open("#test?id=" + rr.get("id").asLong());
        JsonNode frames = rr.get("frames");
        assertEquals(200, frames.size());
        List<Double> rtts = new ArrayList<>();
        for (JsonNode f : frames) {
            if (f.get("valueNanos").asLong() != -1) {
                rtts.add(f.get("valueNanos").asLong() / 1e6);
            }
        }
        assertHistogramCounts("latency-histogram", rtts);
        assertTimeSequence(rr);
        List<Double> ipdv = ipdv(frames);
        assertHistogramCounts("ipdv-histogram", ipdv);

        // the downloads: the histogram as PNG, SVG and the table it was drawn from as CSV
        for (String type : List.of("png", "svg", "csv")) {
            browser.findElement(By.cssSelector("#plot-latency-histogram button[data-download='" + type + "']")).click();
        }
        Path png = downloaded("latency-histogram.png");
        byte[] magic = Files.readAllBytes(png);
        assertEquals("PNG", new String(magic, 1, 3, StandardCharsets.US_ASCII));
        assertTrue(Files.readString(downloaded("latency-histogram.svg")).contains("<svg"));
        List<String> csv = Files.readAllLines(downloaded("latency-histogram.csv"));
        List<List<Double>> rows = rows("latency-histogram");
        assertEquals("binFrom,binTo,count", csv.get(0));
        assertEquals(rows.size() + 1, csv.size());
        for (int i = 0; i < rows.size(); i++) {
            String[] c = csv.get(i + 1).split(",");
            assertEquals(rows.get(i).get(2), Double.parseDouble(c[2]), 0.0);
            assertEquals(rows.get(i).get(0), Double.parseDouble(c[0]), 0.0);
        }
    }

    @Test
    void aStreamShowsItsOneWayDelaysLossesAndThroughputAgainstSpacing() throws Exception {
        JsonNode all = results("path.delay.oneWay");
        JsonNode stream = all.get(all.size() - 1);
        open("#test?id=" + stream.get("id").asLong());
        List<Double> owd = new ArrayList<>();
        for (JsonNode f : stream.get("frames")) {
            if (f.get("valueNanos").asLong() != -1) {
                owd.add(f.get("valueNanos").asLong() / 1e6);
            }
        }
        assertHistogramCounts("latency-histogram", owd);
        assertTimeSequence(stream);
        List<List<Double>> lost = new ArrayList<>();
        for (List<Double> r : rows("time-sequence")) {
            if (r.get(3) == 1.0) {
                lost.add(r);
            }
        }
        assertEquals(stream.get("summary").get("lost").asDouble(), lost.size(), 0.0, "every lost frame is marked");
        assertEquals(Math.max(0, lost.size() - 1), sum(rows("inter-loss"), 2), 0.0, "a gap between each two losses");
        // one point per stored stream of this frame size: its spacing and received rate
        List<List<Double>> spacing = rows("throughput-vs-spacing");
        List<List<Double>> expected = new ArrayList<>();
        for (JsonNode s : all) {
            expected.add(List.of(s.get("summary").get("senderSpacingUs").asDouble(),
                    s.get("summary").get("receiverUserMbps").asDouble(), s.get("summary").get("senderUserMbps").asDouble(),
                    s.get("id").asDouble()));
        }
        expected.sort((a, b) -> Double.compare(a.get(0), b.get(0)));
        assertEquals(expected, spacing);
    }

    /**
     * Loopback never loses a frame by itself, so a second responder (on 127.0.0.2, its own path
     * in the archive, leaving the other views' data alone) is stopped for a second in the middle
     * of a 10 000 frame/s stream: its socket buffer holds a few thousand frames, the kernel drops
     * the rest. Every stored loss must be a marker where it was sent, every arrival a point, and
     * the inter-loss histogram must count the gaps between the stored losses.
     */
    @Test
    void aStreamThatLostFramesMarksEachLossAndCountsTheGapsBetweenThem() throws Exception {
        JsonNode stream;
        try (Responder slow = Responder.start("127.0.0.2")) {
            NmwsClient client = NmwsClient.soap11(service.baseUrl);
            CompletableFuture<org.nmws.client.nmwg.Message> run = CompletableFuture.supplyAsync(() -> client.measure("127.0.0.2", "path.delay.oneWay",
                    Map.of("count", "20000", "packetSize", "1000", "interval", "0.0001", "port", Integer.toString(slow.port))));
            // pause once frames flow, so that the pause falls inside the two-second stream
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline && !sending("127.0.0.2")) {
                Thread.sleep(20);
            }
            assertTrue(sending("127.0.0.2"), "the stream started");
            slow.pause(Duration.ofSeconds(1));
            List<String> answered = NmwsClient.eventTypes(run.get(30, TimeUnit.SECONDS));
            assertTrue(answered.stream().noneMatch(t -> t.startsWith("error.")), answered.toString());
            JsonNode all = api("/api/results?dst=127.0.0.2&raw=true&limit=1&characteristic=path.delay.oneWay").get("results");
            assertEquals(1, all.size());
            stream = all.get(0);
        }
        JsonNode frames = stream.get("frames");
        assertEquals(20000, frames.size());
        List<Long> lostSeq = new ArrayList<>();
        for (JsonNode f : frames) {
            if (f.get("valueNanos").asLong() == -1) {
                lostSeq.add(f.get("seq").asLong());
            }
        }
        assertTrue(lostSeq.size() > 0 && lostSeq.size() < 20000, "some frames lost, not all: " + lostSeq.size());
        assertEquals(stream.get("summary").get("lost").asDouble(), lostSeq.size(), 0.0, "the summary counts the lost frames");

        open("#test?id=" + stream.get("id").asLong());
        assertTimeSequence(stream);
        List<List<Double>> rows = rows("time-sequence");
        for (int i = 0; i < rows.size(); i++) {
            boolean lost = frames.get(i).get("valueNanos").asLong() == -1;
            assertEquals(lost ? 1.0 : 0.0, rows.get(i).get(3), 0.0, "frame " + i);
            assertEquals(lost, Double.isNaN(rows.get(i).get(2)), "frame " + i + ": an arrival time only when it arrived");
        }
        // the red markers as drawn: one per lost frame, at its number
        List<Double> drawn = new ArrayList<>();
        for (List<Object> p : plottedPoints("time-sequence", "lost")) {
            drawn.add(((Number) p.get(0)).doubleValue());
        }
        assertEquals(lostSeq.stream().map(Long::doubleValue).toList(), drawn);
        List<Double> gaps = new ArrayList<>();
        for (int i = 1; i < lostSeq.size(); i++) {
            gaps.add((double) (lostSeq.get(i) - lostSeq.get(i - 1)));
        }
        assertHistogramCounts("inter-loss", gaps);
        // the fit: expected gaps per bin, at each bin's centre, never below zero
        List<List<Double>> bins = rows("inter-loss");
        List<List<Object>> fit = plottedPoints("inter-loss", "exponential fit");
        assertEquals(bins.size(), fit.size());
        for (int i = 0; i < bins.size(); i++) {
            assertEquals((bins.get(i).get(0) + bins.get(i).get(1)) / 2, ((Number) fit.get(i).get(0)).doubleValue(), 1e-9);
            assertTrue(((Number) fit.get(i).get(1)).doubleValue() >= 0, "fit " + fit.get(i));
        }
        assertTrue(browser.findElement(By.id("plot-inter-loss")).getText().contains(lostSeq.size() + (lostSeq.size() == 1 ? " frame lost" : " frames lost")),
                browser.findElement(By.id("plot-inter-loss")).getText());
    }

    /** Whether a test to dst runs and has sent frames (GET /api/tests). */
    private boolean sending(String dst) throws Exception {
        for (JsonNode t : api("/api/tests")) {
            if (dst.equals(t.get("dst").asText()) && t.get("done").asInt() > 0) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aLatencyScanShowsLatencyAgainstFrameSizeWithTheFittedLine() throws Exception {
        JsonNode scan = api("/api/observations?test=LATENCY_SCAN&dst=127.0.0.1").get("results").get(0);
        open("#test?id=" + scan.get("id").asLong());
        JsonNode s = scan.get("summary");
        List<List<Double>> rows = rows("latency-vs-size");
        assertEquals(4, rows.size());
        int[] sizes = {64, 512, 1024, 1472};
        for (int i = 0; i < sizes.length; i++) {
            List<Double> r = rows.get(i);
            int size = sizes[i];
            assertEquals(size, r.get(0), 0.0);
            assertEquals(s.get("size" + size + "MinRttMs").asDouble(), r.get(1), 0.0);
            assertEquals(s.get("size" + size + "MeanRttMs").asDouble(), r.get(2), 0.0);
            double fitted = (s.get("interceptUs").asDouble() + s.get("slopeUsPerByte").asDouble() * size) / 1000;
            assertEquals(fitted, r.get(3), 0.0);
            // and what the measurement's own NMWG answer said (its figures have fewer digits)
            double replied = scanReply.get("size" + size + "MinRttMs");
            assertEquals(replied, r.get(1), Math.abs(replied) * 1e-4 + 1e-9);
        }
    }

    @Test
    void aTcpTestShowsItsTcpInfoSamplesOverTime() throws Exception {
        JsonNode tcp = latest("path.bandwidth.achievable.TCP");
        open("#test?id=" + tcp.get("id").asLong());
        JsonNode s = tcp.get("summary");
        List<List<Double>> rows = rows("tcp-cwnd");
        assertEquals(rows.size() + " TCP_INFO samples stored.", browser.findElement(By.id("frames-note")).getText(),
                "a TCP test stores samples, not frames");
        String title = browser.findElement(By.cssSelector("#view h2")).getText();
        assertTrue(title.matches("TCP_STREAM to 127\\.0\\.0\\.1 at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d"),
                "a human time, no nanoseconds: " + title);
        assertEquals(s.get("tcpInfoSamples").asDouble(), rows.size(), 0.0);
        double maxCwnd = 0;
        double srttSum = 0;
        for (List<Double> r : rows) {
            maxCwnd = Math.max(maxCwnd, r.get(2));
            srttSum += r.get(3) * 1000;
        }
        assertEquals(s.get("maxCwndSegments").asDouble(), maxCwnd, 0.0);
        assertEquals(s.get("meanSrttUs").asDouble(), srttSum / rows.size(), 1e-6);
        for (String plot : List.of("tcp-cwnd", "tcp-srtt", "tcp-retransmits")) {
            assertTrue(browser.findElement(By.id("plot-" + plot)).findElements(By.tagName("canvas")).size() > 0, plot);
        }
    }

    @Test
    void aRunningTestShowsItsProgressAndIsCancelledFromThePage() throws Exception {
        CompletableFuture<HttpResponse<String>> reply = CompletableFuture.supplyAsync(() -> {
            try {
                return service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 3000, ""), "application/xml", null);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        open("#running");
        WebElement row = new WebDriverWait(browser, Duration.ofSeconds(15)).until(d -> d.findElements(
                By.cssSelector("#running tr[data-id] progress")).stream()
                .filter(p -> Integer.parseInt(p.getAttribute("value")) > 0).findFirst()
                .map(p -> p.findElement(By.xpath("ancestor::tr"))).orElse(null));
        assertEquals("3000", row.findElement(By.tagName("progress")).getAttribute("max"));
        String id = row.getAttribute("data-id");
        Files.write(SHOTS.resolve("running-before-cancel.png"), browser.getScreenshotAs(OutputType.BYTES));
        long cancelled = System.nanoTime();
        row.findElement(By.cssSelector("button.cancel")).click();
        HttpResponse<String> resp = reply.get(10, TimeUnit.SECONDS);
        assertTrue(System.nanoTime() - cancelled < TimeUnit.SECONDS.toNanos(10));
        Element message = Service.validatedMessage(resp.body());
        assertEquals("error.mp.measurement", message.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent());
        new WebDriverWait(browser, Duration.ofSeconds(5)).until(d ->
                d.findElement(By.id("running-status")).getText().equals("cancelled " + id)
                        && d.findElements(By.cssSelector("#running tr[data-id]")).isEmpty());
    }

    @Test
    void theSchedulesViewListsTheSchedulesAndTheirRuns() throws Exception {
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(service.baseUrl + "/api/schedules/dash-rtt"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(
                        "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.1\",\"period\":\"PT1H\","
                                + "\"enabled\":false,\"parameters\":{\"count\":\"10\"}}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, put.statusCode(), put.body());
        open("#schedules");
        WebElement row = browser.findElement(By.cssSelector("#schedules tr[data-name='dash-rtt']"));
        List<String> cells = row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
        assertEquals(List.of("dash-rtt", "path.delay.roundTrip", "127.0.0.1", "PT1H"), cells.subList(0, 4));
        assertEquals("false", cells.get(5));
        row.findElement(By.tagName("a")).click();
        new WebDriverWait(browser, Duration.ofSeconds(5)).until(d -> d.findElement(By.id("runs")).getText()
                .startsWith("Runs of dash-rtt"));
    }

    // ---- the page -------------------------------------------------------------------------

    private void open(String hash) {
        browser.get(service.baseUrl + "/dashboard/" + hash);
        WebElement view = browser.findElement(By.id("view"));
        new WebDriverWait(browser, Duration.ofSeconds(15)).until(d -> !"loading".equals(view.getAttribute("data-state")));
        assertEquals("ready", view.getAttribute("data-state"), () -> browser.findElement(By.id("message")).getText());
    }

    private static double shown(WebElement cell, String figure) {
        return Double.parseDouble(cell.findElement(By.cssSelector("[data-figure='" + figure + "']")).getAttribute("data-value"));
    }

    private void setThreshold(String id, double value) {
        ((JavascriptExecutor) browser).executeScript("const i = document.getElementById(arguments[0]); i.value = arguments[1];"
                + "i.dispatchEvent(new Event('change'));", id, Double.toString(value));
    }

    /** The dashboard's colouring rule, written out independently: the worst figure decides. */
    private static String level(double rtt, double rttWarn, double rttBad, double loss, double lossWarn, double lossBad,
                                double mbps, double mbpsWarn, double mbpsBad) {
        int l = Math.max(rtt >= rttBad ? 2 : rtt >= rttWarn ? 1 : 0, loss >= lossBad ? 2 : loss >= lossWarn ? 1 : 0);
        l = Math.max(l, mbps < mbpsBad ? 2 : mbps < mbpsWarn ? 1 : 0);
        return List.of("ok", "warn", "bad").get(l);
    }

    /** The rows a plot was drawn from (its CSV), as numbers (blank as NaN). */
    @SuppressWarnings("unchecked")
    private List<List<Double>> rows(String plot) {
        List<List<Object>> raw = (List<List<Object>>) ((JavascriptExecutor) browser)
                .executeScript("return window.nmws.plots[arguments[0]].rows", plot);
        List<List<Double>> out = new ArrayList<>();
        for (List<Object> r : raw) {
            out.add(r.stream().map(v -> v instanceof Number n ? n.doubleValue() : Double.NaN).toList());
        }
        return out;
    }

    /** The y values ECharts holds for one named series of a chart: what it draws. */
    @SuppressWarnings("unchecked")
    private List<Double> plottedSeries(String plot, String series) {
        List<Map<String, Object>> all = (List<Map<String, Object>>) ((JavascriptExecutor) browser)
                .executeScript("return window.nmws.plotted(arguments[0])", plot);
        assertNotNull(all, plot + " is drawn");
        for (Map<String, Object> s : all) {
            if (series.equals(s.get("name"))) {
                return ((List<List<Object>>) s.get("data")).stream().map(p -> ((Number) p.get(1)).doubleValue()).toList();
            }
        }
        throw new AssertionError(plot + " has no series " + series + ": " + all);
    }

    /** The points ECharts holds for one named series of a chart, as [x, y]. */
    @SuppressWarnings("unchecked")
    private List<List<Object>> plottedPoints(String plot, String series) {
        List<Map<String, Object>> all = (List<Map<String, Object>>) ((JavascriptExecutor) browser)
                .executeScript("return window.nmws.plotted(arguments[0])", plot);
        assertNotNull(all, plot + " is drawn");
        for (Map<String, Object> s : all) {
            if (series.equals(s.get("name"))) {
                return (List<List<Object>>) s.get("data");
            }
        }
        throw new AssertionError(plot + " has no series " + series + ": " + all);
    }

    /**
     * A histogram's counts recounted from the stored values with the plot's own bin edges
     * (each value in [from, to), the last bin closed), and its bars as drawn.
     */
    @SuppressWarnings("unchecked")
    private void assertHistogramCounts(String plot, List<Double> values) {
        List<List<Double>> rows = rows(plot);
        assertTrue(!rows.isEmpty(), plot + " has bins");
        double total = 0;
        for (int i = 0; i < rows.size(); i++) {
            double lo = rows.get(i).get(0);
            double hi = rows.get(i).get(1);
            boolean last = i == rows.size() - 1;
            assertTrue(lo < hi, plot + " bin " + i + " [" + lo + ", " + hi + ") is not empty");
            if (!last) {
                assertEquals(hi, rows.get(i + 1).get(0), 0.0, plot + ": bin " + (i + 1) + " starts where bin " + i + " ends");
            }
            long n = values.stream().filter(v -> v >= lo && (v < hi || last && v <= hi)).count();
            assertEquals(n, rows.get(i).get(2), 0.0, plot + " bin [" + lo + ", " + hi + ")");
            total += n;
        }
        assertEquals(values.size(), total, 0.0, plot + ": every value in a bin");
        List<Map<String, Object>> drawn = (List<Map<String, Object>>) ((JavascriptExecutor) browser)
                .executeScript("return window.nmws.plotted(arguments[0])", plot);
        List<List<Object>> bars = (List<List<Object>>) drawn.get(0).get("data");
        for (int i = 0; i < rows.size(); i++) { // each bar drawn [from, to, count]: its bin's edges and count
            for (int k = 0; k < 3; k++) {
                assertEquals(rows.get(i).get(k), ((Number) bars.get(i).get(k)).doubleValue(), 0.0, plot + " bar " + i + "[" + k + "]");
            }
        }
    }

    /** Each frame's arrival (send + delay, ms after the start) or its loss, as /api/results stored it. */
    private void assertTimeSequence(JsonNode result) {
        Instant start = Instant.parse(result.get("start").asText());
        long startNs = start.getEpochSecond() * 1_000_000_000L + start.getNano();
        List<List<Double>> rows = rows("time-sequence");
        JsonNode frames = result.get("frames");
        assertEquals(frames.size(), rows.size());
        for (int i = 0; i < rows.size(); i++) {
            JsonNode f = frames.get(i);
            List<Double> r = rows.get(i);
            long sendOffset = f.get("sendEpochNanos").asLong() - startNs;
            assertEquals(f.get("seq").asDouble(), r.get(0), 0.0);
            assertEquals(sendOffset / 1e6, r.get(1), 0.0);
            long v = f.get("valueNanos").asLong();
            if (v == -1) {
                assertEquals(1.0, r.get(3), 0.0, "frame " + i + " lost");
            } else {
                assertEquals((sendOffset + v) / 1e6, r.get(2), 0.0, "frame " + i + " arrival");
            }
        }
    }

    /** Delay changes between consecutive sequence numbers that both arrived, from the stored frames. */
    private static List<Double> ipdv(JsonNode frames) {
        Map<Long, Long> bySeq = new HashMap<>();
        for (JsonNode f : frames) {
            if (f.get("valueNanos").asLong() != -1) {
                bySeq.put(f.get("seq").asLong(), f.get("valueNanos").asLong());
            }
        }
        List<Double> out = new ArrayList<>();
        for (Map.Entry<Long, Long> e : bySeq.entrySet()) {
            Long prev = bySeq.get(e.getKey() - 1);
            if (prev != null) {
                out.add((e.getValue() - prev) / 1e6);
            }
        }
        return out;
    }

    private static double sum(List<List<Double>> rows, int column) {
        return rows.stream().mapToDouble(r -> r.get(column)).sum();
    }

    private Path downloaded(String name) throws InterruptedException {
        Path f = downloads.resolve(name);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(Files.isRegularFile(f) && f.toFile().length() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(Files.isRegularFile(f), name + " downloaded into " + downloads);
        return f;
    }

    // ---- the stored values, through the JSON API -----------------------------------------

    private JsonNode api(String path) throws Exception {
        HttpResponse<String> r = service.get(path);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return json.readTree(r.body());
    }

    /** Every stored result of a characteristic to 127.0.0.1 with its frames, oldest first. */
    private JsonNode results(String characteristic) throws Exception {
        return api("/api/results?dst=127.0.0.1&raw=true&limit=100&characteristic=" + characteristic).get("results");
    }

    private JsonNode latest(String characteristic) throws Exception {
        JsonNode all = results(characteristic);
        return all.get(all.size() - 1);
    }

    private static List<Double> values(JsonNode results, String figure) {
        List<Double> out = new ArrayList<>();
        results.forEach(r -> out.add(r.get("summary").get(figure).asDouble()));
        return out;
    }

    private static Map<String, Double> figures(Element message) {
        Map<String, Double> f = new HashMap<>();
        NodeList figures = message.getElementsByTagNameNS(FIGURE, "figure");
        for (int i = 0; i < figures.getLength(); i++) {
            Element e = (Element) figures.item(i);
            f.put(e.getAttribute("name"), Double.parseDouble(e.getAttribute("value")));
        }
        return f;
    }
}

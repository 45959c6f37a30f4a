package org.nmws.service.psconfig;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.schedule.ScheduleService;
import org.nmws.service.schedule.ScheduleStore;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A point that names a pSConfig template (nmws.psconfig.file or nmws.psconfig.url) runs its
 * share of it, re-read every nmws.psconfig.refresh (PT1H). The addresses that are this point:
 * nmws.psconfig.self (names and addresses, comma-separated) and the point's name, else its
 * name and the addresses of its interfaces (a host name in the template is resolved to see).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${nmws.psconfig.file:}' != '' or '${nmws.psconfig.url:}' != ''")
class PsConfigConfig {

    @Bean
    PsConfigAgent psConfigAgent(@Value("${nmws.psconfig.file:}") String file, @Value("${nmws.psconfig.url:}") String url,
                                @Value("${nmws.psconfig.refresh:PT1H}") Duration refresh,
                                @Value("${nmws.psconfig.self:}") String selfNames, ScheduleService schedules,
                                ScheduleStore store, MeasurementService measurements) {
        if (!file.isBlank() && !url.isBlank()) {
            throw new IllegalArgumentException("nmws.psconfig.file and nmws.psconfig.url are both set; set one");
        }
        if (!url.isBlank() && !url.regionMatches(true, 0, "https://", 0, 8)) {
            throw new IllegalArgumentException("nmws.psconfig.url must be an https URL, was " + url);
        }
        if (refresh.compareTo(Duration.ofSeconds(1)) < 0 || refresh.compareTo(Duration.ofDays(7)) > 0) {
            throw new IllegalArgumentException("nmws.psconfig.refresh must be 1 s..7 days, was " + refresh);
        }
        String point = measurements.measurementPoint();
        return new PsConfigAgent(file.isBlank() ? url : file, refresh, new Planner(self(selfNames, point)), schedules, store,
                point, Clock.systemUTC());
    }

    static Predicate<String> self(String configured, String point) {
        Set<String> names = new HashSet<>();
        names.add(point.toLowerCase(Locale.ROOT));
        Arrays.stream(configured.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .forEach(s -> names.add(s.toLowerCase(Locale.ROOT)));
        if (!configured.isBlank()) {
            return a -> names.contains(a.toLowerCase(Locale.ROOT));
        }
        Set<InetAddress> mine = new HashSet<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                mine.addAll(Collections.list(nif.getInetAddresses()));
            }
        } catch (SocketException e) {
            throw new IllegalStateException("this host's interface addresses cannot be listed; set nmws.psconfig.self", e);
        }
        return a -> {
            if (names.contains(a.toLowerCase(Locale.ROOT))) {
                return true;
            }
            try {
                for (InetAddress x : InetAddress.getAllByName(a)) {
                    if (mine.contains(x)) {
                        return true;
                    }
                }
            } catch (UnknownHostException | SecurityException e) {
                return false; // a name that does not resolve is not this host's
            }
            return false;
        };
    }
}

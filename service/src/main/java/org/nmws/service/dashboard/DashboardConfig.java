package org.nmws.service.dashboard;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The dashboard: static pages under /dashboard/ (classpath:/static/dashboard) drawing with the
 * ECharts webjar under /webjars/, both in the service's jar. It reads the JSON API with the
 * client's own credentials, so it sees and may do exactly what the client may (read to look,
 * measure to cancel a test).
 */
@Configuration(proxyBeanMethods = false)
class DashboardConfig implements WebMvcConfigurer {
    /**
     * Only this origin's scripts and data: a page that tried a CDN or an inline script would be
     * refused by the browser, and a test sees the refusal in the console. Inline styles are
     * allowed because ECharts positions its tooltips with them.
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data: blob:; "
            + "style-src 'self' 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'";

    @Override
    public void addViewControllers(ViewControllerRegistry registry) {
        registry.addRedirectViewController("/dashboard", "/dashboard/");
        registry.addViewController("/dashboard/").setViewName("forward:/dashboard/index.html");
    }

    @Bean
    FilterRegistrationBean<Filter> dashboardContentSecurityPolicy() {
        FilterRegistrationBean<Filter> f = new FilterRegistrationBean<>((request, response, chain) -> {
            ((HttpServletResponse) response).setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
            chain.doFilter(request, response);
        });
        f.addUrlPatterns("/dashboard/*");
        f.setName("dashboardContentSecurityPolicy");
        return f;
    }
}

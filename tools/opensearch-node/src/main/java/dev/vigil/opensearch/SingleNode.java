// Starts a single-node OpenSearch for development and tests. The server, the percolator and reindex
// modules (reindex serves _delete_by_query), analysis-common and the netty4 transport are ordinary
// jars on the classpath, handed to the node as classpath plugins (the way OpenSearch's own test nodes
// load them), so no distribution is needed.
// Settings come from the environment:
//   OPENSEARCH_HTTP_PORT       HTTP port on 127.0.0.1 (default 9200)
//   OPENSEARCH_TRANSPORT_PORT  transport port or range on 127.0.0.1 (default 9300-9399)
//   OPENSEARCH_DATA            data folder (default data/opensearch, relative to the working folder)
// Arguments -Ekey=value add or override node settings. SIGTERM or SIGINT closes the node and exits 0.
package dev.vigil.opensearch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.index.reindex.ReindexPlugin;
import org.opensearch.percolator.PercolatorPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

import sun.misc.Signal;

public final class SingleNode {
    private static final List<Class<? extends Plugin>> MODULES =
        List.of(Netty4Plugin.class, CommonAnalysisPlugin.class, PercolatorPlugin.class, ReindexPlugin.class);

    /** A node whose modules are classes on the classpath instead of folders under modules/. */
    private static final class ClasspathNode extends Node {
        ClasspathNode(Environment environment) {
            super(environment, MODULES, true);
        }
    }

    private SingleNode() {}

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of(env("OPENSEARCH_DATA", "data/opensearch")).toAbsolutePath().normalize();
        Path home = data.resolve("home");
        Path config = home.resolve("config");
        Files.createDirectories(config);
        Files.createDirectories(data.resolve("logs"));

        Settings.Builder builder = Settings.builder()
            .put("path.home", home.toString())
            .put("path.data", data.resolve("nodes-data").toString())
            .put("path.logs", data.resolve("logs").toString())
            .put("cluster.name", "vigil-dev")
            .put("node.name", "vigil-dev-node")
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", env("OPENSEARCH_HTTP_PORT", "9200"))
            .put("transport.port", env("OPENSEARCH_TRANSPORT_PORT", "9300-9399"))
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("action.auto_create_index", true);
        // Further settings as the opensearch command takes them: -Ekey=value.
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("-E") || eq < 3) {
                System.err.println("unknown argument " + arg + " (expected -Ekey=value)");
                System.exit(2);
            }
            builder.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        Settings settings = builder.build();

        Environment environment =
            InternalSettingsPreparer.prepareEnvironment(settings, Collections.emptyMap(), config, () -> "vigil-dev-node");
        Node node = new ClasspathNode(environment);

        // The node's threads are daemons: the main thread waits for SIGTERM or SIGINT, closes the node
        // (flushing its shards) and exits 0.
        CountDownLatch stopRequested = new CountDownLatch(1);
        for (String name : List.of("TERM", "INT")) {
            Signal.handle(new Signal(name), signal -> stopRequested.countDown());
        }

        try {
            node.start();
        } catch (Exception e) {
            e.printStackTrace();
            node.close();
            // One last line that says why, for whoever reads the end of the log.
            StringBuilder why = new StringBuilder("OpenSearch did not start: ").append(e);
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                why.append(" <- ").append(cause);
            }
            System.err.println(why);
            System.exit(1);
        }
        stopRequested.await();
        int status = 0;
        try {
            node.close();
            if (!node.awaitClose(30, TimeUnit.SECONDS)) {
                System.err.println("the node did not close within 30 seconds");
                status = 1;
            }
        } catch (Exception e) {
            System.err.println("closing the node failed: " + e);
            status = 1;
        }
        System.exit(status);
    }
}

package threadmind.neo4j;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.fleetmanagement.FleetManagementSettings;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.helpers.HostnamePort;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * Starts an embedded Neo4j (community edition) with only the Bolt connector, on 127.0.0.1, with
 * authentication on, for threadmind's tests. Not for production.
 *
 * <pre>
 * java -cp 'target/lib/*:target/classes' threadmind.neo4j.Launcher --port 0 --data DIR
 * </pre>
 *
 * Options: {@code --port N} (0 = any free port; the chosen one is printed), {@code --data DIR}
 * (Neo4j's home: databases, transaction logs and logs live below it), {@code --password PW} (else
 * the NEO4J_PASSWORD environment variable), {@code --reader-password PW} (else
 * NEO4J_READER_PASSWORD; when given, a second user {@code reader} is created), {@code --pid-file
 * FILE} (this JVM's pid is written there), {@code --watch-pid PID} (shut down when that process
 * exits, so a crashed test run or CI script leaves no server behind). Prints {@code NEO4J
 * READY bolt://127.0.0.1:PORT} on stdout once Bolt accepts connections and the {@code neo4j}
 * database is available; stops cleanly on SIGTERM/SIGINT.
 */
public final class Launcher {
  private Launcher() {}

  public static void main(String[] args) throws Exception {
    int port = 7687;
    Path data = null;
    String password = System.getenv("NEO4J_PASSWORD");
    String readerPassword = System.getenv("NEO4J_READER_PASSWORD");
    Path pidFile = null;
    long watchPid = 0;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--port" -> port = Integer.parseInt(value(args, ++i, arg));
        case "--data" -> data = Path.of(value(args, ++i, arg));
        case "--password" -> password = value(args, ++i, arg);
        case "--reader-password" -> readerPassword = value(args, ++i, arg);
        case "--pid-file" -> pidFile = Path.of(value(args, ++i, arg));
        case "--watch-pid" -> watchPid = Long.parseLong(value(args, ++i, arg));
        default -> fail("unknown argument: " + arg);
      }
    }
    if (data == null) fail("--data DIR is required");
    if (password == null || password.length() < 8) {
      fail("a password of 8 or more characters is required (NEO4J_PASSWORD or --password)");
    }
    if (readerPassword != null && readerPassword.isEmpty()) readerPassword = null;
    if (readerPassword != null && readerPassword.length() < 8) {
      fail("the reader password must have 8 or more characters");
    }
    Files.createDirectories(data);
    if (pidFile != null) {
      Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
    }

    if (watchPid > 0) {
      // Stop with the process that started us, even when it dies without running its cleanup.
      Optional<ProcessHandle> watched = ProcessHandle.of(watchPid);
      if (watched.isEmpty()) fail("--watch-pid " + watchPid + ": no such process");
      watched.get().onExit().thenRun(() -> System.exit(0));
    }

    DatabaseManagementService dbms;
    try {
      dbms = start(data.toAbsolutePath(), port);
    } catch (Throwable t) {
      System.err.println("NEO4J FAILED: " + t);
      t.printStackTrace();
      System.exit(1);
      return;
    }

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("NEO4J STOPPING");
                  System.out.flush();
                  try {
                    dbms.shutdown();
                  } finally {
                    stopped.countDown();
                  }
                },
                "neo4j-shutdown"));

    try {
      GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
      setPassword(system, password);
      if (readerPassword != null) {
        system.executeTransactionally(
            "CREATE OR REPLACE USER reader SET PLAINTEXT PASSWORD $pw CHANGE NOT REQUIRED",
            Map.of("pw", readerPassword));
      }

      GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
      if (!db.isAvailable(Duration.ofSeconds(120).toMillis())) {
        fail("the neo4j database did not become available within 120 s");
      }
      int boltPort = boltPort((GraphDatabaseAPI) db, port);
      waitForBolt(boltPort);
      System.out.println("NEO4J READY bolt://127.0.0.1:" + boltPort);
      System.out.flush();
    } catch (Throwable t) {
      System.err.println("NEO4J FAILED: " + t);
      t.printStackTrace();
      System.exit(1);
    }
    stopped.await();
  }

  private static DatabaseManagementService start(Path home, int port) {
    return new DatabaseManagementServiceBuilder(home)
        .setConfig(BoltConnector.enabled, true)
        .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
        .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
        .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
        .setConfig(BoltConnector.enable_discovery, false)
        .setConfig(HttpConnector.enabled, false)
        .setConfig(HttpsConnector.enabled, false)
        .setConfig(GraphDatabaseSettings.auth_enabled, true)
        .setConfig(GraphDatabaseSettings.udc_enabled, false)
        .setConfig(FleetManagementSettings.fleet_manager_enabled, false)
        .setConfig(GraphDatabaseSettings.pagecache_memory, 128L * 1024 * 1024)
        .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
        .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, 32L * 1024 * 1024)
        .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
        // Netty waits 5 s twice by default before the Bolt server is down: tests stop often.
        .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1))
        .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1))
        .build();
  }

  /** Sets the built-in user's password; a restart on the same data directory keeps working. */
  private static void setPassword(GraphDatabaseService system, String password) {
    try {
      system.executeTransactionally(
          "ALTER USER neo4j SET PLAINTEXT PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
    } catch (RuntimeException e) {
      // Neo4j refuses to "change" a password to the one it already has (restart on old data).
      String message = String.valueOf(e.getMessage()).toLowerCase();
      if (!message.contains("same")) throw e;
    }
  }

  private static int boltPort(GraphDatabaseAPI db, int requested) {
    HostnamePort bound =
        db.getDependencyResolver()
            .resolveDependency(ConnectorPortRegister.class)
            .getLocalAddress(ConnectorType.BOLT);
    return bound != null ? bound.getPort() : requested;
  }

  private static void waitForBolt(int port) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Bolt is not listening on 127.0.0.1:" + port, e);
        }
        Thread.sleep(100);
      }
    }
  }

  private static String value(String[] args, int i, String name) {
    if (i >= args.length) fail(name + " needs a value");
    return args[i];
  }

  private static void fail(String message) {
    System.err.println("NEO4J FAILED: " + message);
    System.exit(2);
  }
}

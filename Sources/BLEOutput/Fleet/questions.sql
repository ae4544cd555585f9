-- The standard questions over the tables `bleanalyze tables` writes, in SQL that DuckDB and
-- Spark SQL both run. Whoever runs them first makes one view per table (captures,
-- connections, attempts, calls, transactions, pairs, disconnections, advertisers,
-- transfers, gatt): `bleanalyze fleet report DIR` does it for DuckDB,
-- Samples/fleet/spark_tables.py for Spark. Each question starts with a line
-- "-- question: NAME: what it answers" and ends with a semicolon.
--
-- Columns that may be null in every row are cast to STRING (a JSON reader gives such a
-- column no type), and group keys are never null (engines sort nulls differently).
-- Percentiles are continuous (linear between ranks): percentile_cont in both engines.

-- question: overview: captures read, damaged and unreadable, with their records and connections
SELECT COALESCE(CAST(c.platform AS STRING), 'capture') AS kind,
       COUNT(*) AS captures,
       SUM(CASE WHEN c.damage IS NOT NULL THEN 1 ELSE 0 END) AS damaged,
       SUM(CASE WHEN c.open_error IS NOT NULL THEN 1 ELSE 0 END) AS unreadable,
       SUM(COALESCE(c.record_count, 0)) AS records,
       SUM(c.row_counts.connections) AS connections,
       SUM(c.row_counts.calls) AS calls,
       SUM(c.row_counts.transactions) AS transactions
FROM captures c
GROUP BY 1
ORDER BY 1;

-- question: connect_time_by_phone_model: connect time (ms) p50 and p95 by phone model
SELECT COALESCE(CAST(c.phone_model AS STRING), CAST(c.platform AS STRING), 'unknown') AS phone_model,
       COUNT(*) AS connections,
       ROUND(percentile_cont(0.5) WITHIN GROUP (ORDER BY n.connect_latency_ms), 3) AS p50_ms,
       ROUND(percentile_cont(0.95) WITHIN GROUP (ORDER BY n.connect_latency_ms), 3) AS p95_ms
FROM connections n JOIN captures c ON n.capture = c.capture
WHERE n.connect_latency_ms IS NOT NULL
GROUP BY 1
ORDER BY 1;

-- question: connect_time_by_peer_firmware: connect time (ms) p50 and p95 by the peer's firmware revision
SELECT COALESCE(CAST(c.peer_firmware AS STRING), 'unknown') AS peer_firmware,
       COUNT(*) AS connections,
       ROUND(percentile_cont(0.5) WITHIN GROUP (ORDER BY n.connect_latency_ms), 3) AS p50_ms,
       ROUND(percentile_cont(0.95) WITHIN GROUP (ORDER BY n.connect_latency_ms), 3) AS p95_ms
FROM connections n JOIN captures c ON n.capture = c.capture
WHERE n.connect_latency_ms IS NOT NULL
GROUP BY 1
ORDER BY 1;

-- question: failed_connects_by_phone_model: connect attempts that made no connection, with their HCI status, by phone model
SELECT COALESCE(CAST(c.phone_model AS STRING), CAST(c.platform AS STRING), 'unknown') AS phone_model,
       a.outcome AS outcome,
       COALESCE(CAST(a.status_name AS STRING), '-') AS status,
       COUNT(*) AS attempts
FROM attempts a JOIN captures c ON a.capture = c.capture
WHERE a.outcome <> 'connected'
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3;

-- question: failed_calls_by_phone_model: app calls that failed, with the status Android and CoreBluetooth report, by phone model
SELECT COALESCE(CAST(c.phone_model AS STRING), CAST(c.platform AS STRING), 'unknown') AS phone_model,
       k.call AS call,
       COALESCE(CAST(k.platform_error.android AS STRING), '-') AS android_status,
       COALESCE(CAST(k.platform_error.android_name AS STRING), '-') AS android_name,
       COALESCE(CAST(k.platform_error.corebluetooth_name AS STRING), '-') AS corebluetooth,
       COUNT(*) AS calls
FROM calls k JOIN captures c ON k.capture = c.capture
WHERE k.result = 'error'
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5;

-- question: disconnect_reasons_by_peer: disconnect reasons and who caused them, by peer
SELECT COALESCE(CAST(d.peer_address AS STRING), 'unknown') AS peer,
       d.reason_name AS reason,
       d.initiator AS initiator,
       COUNT(*) AS disconnections
FROM disconnections d
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3;

-- question: att_latency_by_characteristic_and_firmware: p95 ATT latency (ms) per characteristic per peer firmware
SELECT COALESCE(CAST(c.peer_firmware AS STRING), 'unknown') AS peer_firmware,
       COALESCE(CAST(t.characteristic_uuid AS STRING), '-') AS characteristic,
       COUNT(*) AS transactions,
       ROUND(percentile_cont(0.95) WITHIN GROUP (ORDER BY t.latency_ms), 3) AS p95_ms
FROM transactions t JOIN captures c ON t.capture = c.capture
WHERE t.latency_ms IS NOT NULL
GROUP BY 1, 2
ORDER BY 1, 2;

-- question: notifications_per_second: notifications and indications per second of transfer, by capture
SELECT t.capture AS capture,
       t.op AS op,
       SUM(t.pdu_count) AS pdus,
       ROUND(CAST(SUM(t.span_ms) AS DOUBLE) / 1000, 3) AS seconds,
       ROUND(CAST(SUM(t.pdu_count) AS DOUBLE) * 1000 / SUM(t.span_ms), 3) AS per_second
FROM transfers t
WHERE t.op IN ('notify', 'indicate') AND t.span_ms > 0
GROUP BY 1, 2
ORDER BY 1, 2;

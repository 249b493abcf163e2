#!/usr/bin/python3
"""librdkafka's mock cluster as a baseline for bench/: started the way librdkafka's own tests do,
from a confluent_kafka Producer with test.mock.num.brokers=3. Prints one JSON line
{"bootstrap": "host:port,...", "librdkafka": "2.0.2"} built from the list_topics() metadata, then
serves until stdin closes (the parent exits or closes it).

Topics given as name:partitions arguments are created up front with rd_kafka_mock_topic_create
(librdkafka's mock has no CreateTopics API; auto-created topics get 4 partitions). The mock
cluster belongs to the producer's rd_kafka_t, read from the confluent_kafka Handle object
(CPython layout: PyObject_HEAD, then rd_kafka_t *rk); the result is checked through metadata.
"""
import ctypes
import json
import sys

import confluent_kafka

producer = confluent_kafka.Producer({'test.mock.num.brokers': 3})
md = producer.list_topics(timeout=10)
bootstrap = ','.join(f'{b.host}:{b.port}' for b in sorted(md.brokers.values(), key=lambda b: b.id))

topics = [a.split(':') for a in sys.argv[1:]]
if topics:
    lib = ctypes.CDLL('librdkafka.so.1')
    lib.rd_kafka_handle_mock_cluster.restype = ctypes.c_void_p
    lib.rd_kafka_handle_mock_cluster.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_mock_topic_create.restype = ctypes.c_int
    lib.rd_kafka_mock_topic_create.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    rk = ctypes.c_void_p.from_address(id(producer) + object.__basicsize__).value
    mcluster = lib.rd_kafka_handle_mock_cluster(rk)
    if not mcluster:
        sys.exit('no mock cluster on the producer handle')
    for name, parts in topics:
        err = lib.rd_kafka_mock_topic_create(mcluster, name.encode(), int(parts), 3)
        if err != 0:
            sys.exit(f'rd_kafka_mock_topic_create({name}) failed: {err}')
    md = producer.list_topics(timeout=10)
    for name, parts in topics:
        got = len(md.topics[name].partitions)
        if got != int(parts):
            sys.exit(f'topic {name} has {got} partitions, wanted {parts}')

print(json.dumps({'bootstrap': bootstrap, 'librdkafka': confluent_kafka.libversion()[0]}), flush=True)
sys.stdin.read()

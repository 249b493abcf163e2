"""The read_committed oracle's reader (test/helpers/read-committed.ts): confluent-kafka (librdkafka), not KafkaJS.

Usage: read_committed.py <bootstrap> <topic> <stable-timeout-seconds>

1. Waits until the last stable offset (ListOffsets latest under read_committed) of every partition reaches its high
   watermark (the same under read_uncommitted): a transaction still open (e.g. of a SIGKILLed producer) holds the LSO
   back until the transaction coordinator aborts it (transaction.timeout.ms) or a new producer of the same
   transactional.id fences it (InitProducerId). Kafka's behaviour; a read before that would stop at the LSO.
2. Reads every partition from the beginning to that offset twice, with isolation.level read_committed and
   read_uncommitted, by assign() (no group).
Prints one JSON object: {"hw": {p: n}, "lso": {p: n}, "committed": [[p, offset, key, value], ...],
"uncommitted": [[p, offset], ...]}; exit 3 with {"error": ...} when the LSO does not reach the high watermark in time.
"""
import json
import sys
import time

import confluent_kafka as ck

bootstrap, topic, timeout_s = sys.argv[1], sys.argv[2], float(sys.argv[3])
base = {'bootstrap.servers': bootstrap, 'broker.address.family': 'v4', 'socket.timeout.ms': 10000,
        'group.id': 'kafka-eos-read-committed-oracle', 'enable.auto.commit': False, 'enable.partition.eof': True}


def consumer(isolation):
    return ck.Consumer(dict(base, **{'isolation.level': isolation}))


committed_reader, all_reader = consumer('read_committed'), consumer('read_uncommitted')
partitions = sorted(committed_reader.list_topics(topic, timeout=10).topics[topic].partitions)


def ends(c):
    # librdkafka's ListOffsets carries the consumer's isolation level: under read_committed "latest" is the LSO.
    return {p: c.get_watermark_offsets(ck.TopicPartition(topic, p), timeout=10, cached=False)[1] for p in partitions}


deadline = time.time() + timeout_s
while True:
    lso, hw = ends(committed_reader), ends(all_reader)
    if lso == hw:
        break
    if time.time() > deadline:
        print(json.dumps({'error': 'the LSO did not reach the high watermark in %.0f s' % timeout_s, 'lso': lso, 'hw': hw}))
        sys.exit(3)
    time.sleep(0.2)


def read(c, full):
    out, open_parts = [], {p for p in partitions if hw[p] > 0}
    if not open_parts:
        return out
    c.assign([ck.TopicPartition(topic, p, ck.OFFSET_BEGINNING) for p in partitions])
    stop = time.time() + 120
    while open_parts and time.time() < stop:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == ck.KafkaError._PARTITION_EOF:
                if m.offset() >= hw[m.partition()]:
                    open_parts.discard(m.partition())
                continue
            raise ck.KafkaException(m.error())
        key = m.key().decode() if m.key() is not None else None
        out.append([m.partition(), m.offset(), key, m.value().decode()] if full else [m.partition(), m.offset()])
    if open_parts:
        print(json.dumps({'error': 'partitions not read to their end in 120 s: %s' % sorted(open_parts)}))
        sys.exit(3)
    return out


result = {'hw': hw, 'lso': lso, 'committed': read(committed_reader, True), 'uncommitted': read(all_reader, False)}
committed_reader.close()
all_reader.close()
print(json.dumps(result))

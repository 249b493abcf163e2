"""A kafka-python group member for the interop test: prints one JSON line per record and
{"assigned": [...]} on each assignment. argv: bootstrap group topic strategy(range|roundrobin)."""
import json
import sys

from kafka import ConsumerRebalanceListener, KafkaConsumer
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

bootstrap, group, topic, strategy = sys.argv[1:5]
assignor = RangePartitionAssignor if strategy == 'range' else RoundRobinPartitionAssignor


class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        print(json.dumps({'assigned': sorted(tp.partition for tp in assigned)}), flush=True)


consumer = KafkaConsumer(
    bootstrap_servers=bootstrap.split(','), group_id=group, client_id='py', auto_offset_reset='earliest',
    partition_assignment_strategy=[assignor], session_timeout_ms=10000, heartbeat_interval_ms=200,
    fetch_max_wait_ms=100, api_version=(2, 3, 0),
)
consumer.subscribe([topic], listener=Listener())
while True:
    for tp, records in consumer.poll(timeout_ms=100).items():
        for r in records:
            print(json.dumps({'partition': r.partition, 'offset': r.offset, 'value': r.value.decode()}), flush=True)
        consumer.commit()

/** `kafka-eos/webhdfs-server`: the in-process WebHDFS NameNode + DataNode for tests (see docs/hdfs-sink.md). */
export { WebHdfsServer } from './sinks/hdfs/webhdfs-server';
export type { WebHdfsFault, WebHdfsOp, WebHdfsRequestLog, WebHdfsServerOptions, HdfsFileStatus } from './sinks/hdfs/webhdfs-server';

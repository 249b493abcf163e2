/** `kafka-eos/webhdfs-server`: the in-process WebHDFS NameNode + DataNode for tests (see docs/hdfs-sink.md). */
export { WebHdfsServer } from './testing/webhdfs-server/server';
export type { WebHdfsFault, WebHdfsOp, WebHdfsRequestLog, WebHdfsServerOptions, HdfsFileStatus } from './testing/webhdfs-server/server';

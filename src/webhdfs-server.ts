/**
 * `kafka-eos/webhdfs-server`: the in-process WebHDFS NameNode + DataNode for tests, and readHdfsSinkOutput to read what
 * the HDFS sink committed back in a test, in every format (see docs/hdfs-sink.md).
 */
export { WebHdfsServer } from './testing/webhdfs-server/server';
export type { WebHdfsFault, WebHdfsOp, WebHdfsRequestLog, WebHdfsServerOptions, HdfsFileStatus } from './testing/webhdfs-server/server';
export { readHdfsSinkOutput } from './sinks/hdfs/read-output';
export type { HdfsSinkOutputFile, ReadHdfsSinkOutputOptions } from './sinks/hdfs/read-output';

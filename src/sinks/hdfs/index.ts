/**
 * HDFS sink barrel: HdfsSink, its config, formats, partitioners and the WebHDFS client.
 * The test server is in `kafka-eos/webhdfs-server`.
 */
export { HdfsSink } from './hdfs-sink';
export type { HdfsCommit } from './hdfs-sink';
export { hdfsSinkConfigSchema, validateHdfsSinkConfig } from './config';
export type { HdfsSinkConfig } from './config';
export type { HdfsColumn, HdfsFormatConfig } from './format';
export type { PartitionerConfig } from './partitioner';
export { WebHdfsClient, WebHdfsError } from './webhdfs-client';
export type { WebHdfsClientOptions, HdfsFileStatus } from './webhdfs-client';
export { parseName, HdfsLayout } from './commit';
export { readPosition } from './recovery';
export type { StrayClaim } from './recovery';

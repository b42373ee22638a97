import {
  DynamoDBClient,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { classifyFailure } from '@recourse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classesOf, closedPort, type Fixture, rejection, startFixture } from './support.js';

const credentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'test-secret' };
let fixture: Fixture;
let dynamo: DynamoDBClient;
let s3: S3Client;

beforeAll(async () => {
  fixture = await startFixture();
  const common = { region: 'us-east-1', credentials, maxAttempts: 1, endpoint: fixture.url };
  dynamo = new DynamoDBClient(common);
  s3 = new S3Client({ ...common, forcePathStyle: true });
});
afterAll(async () => {
  dynamo.destroy();
  s3.destroy();
  await fixture.close();
});

const putItem = () =>
  new PutItemCommand({
    TableName: 'orders',
    Item: { id: { S: 'o-1' } },
    ConditionExpression: 'attribute_not_exists(id)',
  });

/** The error DynamoDB's real client throws for an awsJson1_0 error body. */
async function dynamoError(status: number, type: string, extra: object = {}) {
  fixture.reply({
    status,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'req-1' },
    body: {
      __type: `com.amazonaws.dynamodb.v20120810#${type}`,
      message: `${type} happened`,
      ...extra,
    },
  });
  return rejection(() => dynamo.send(putItem()));
}

async function s3Error(status: number, code: string, write = false) {
  fixture.reply({
    status,
    headers: { 'content-type': 'application/xml' },
    body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code} happened</Message><RequestId>r-1</RequestId></Error>`,
  });
  const command = write
    ? new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: 'data' })
    : new GetObjectCommand({ Bucket: 'b', Key: 'k' });
  return rejection(() => s3.send(command));
}

describe('AWS SDK v3 DynamoDB: every service exception arrives with HTTP 400', () => {
  it.each([
    ['ConditionalCheckFailedException', 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
    ['ThrottlingException', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    ['ProvisionedThroughputExceededException', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    ['RequestLimitExceeded', 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    ['AccessDeniedException', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    ['UnrecognizedClientException', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['ResourceNotFoundException', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    ['TransactionConflictException', 'TRANSIENT', 'TRANSIENT', 'TRANSACTION_ROLLBACK'],
    ['ValidationException', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
  ])('%s', async (type, noHint, withHint, code) => {
    const error = await dynamoError(400, type);
    expect(error).toMatchObject({
      name: type,
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    expect(classesOf(error)).toEqual([noHint, withHint, code]);
    expect(classifyFailure(error).status).toBe(400);
  });

  it('InternalServerError (500) may have applied the write; 503 did not', async () => {
    expect(classesOf(await dynamoError(500, 'InternalServerError'))).toEqual([
      'TRANSIENT',
      'UNKNOWN_OUTCOME',
      'SERVER_ERROR',
    ]);
    expect(classesOf(await dynamoError(503, 'ServiceUnavailable'))).toEqual([
      'TRANSIENT',
      'TRANSIENT',
      'SERVICE_UNAVAILABLE',
    ]);
  });

  it('a cancelled transaction is read by its cancellation reasons', async () => {
    const transact = () =>
      dynamo.send(
        new TransactWriteItemsCommand({
          TransactItems: [{ Put: { TableName: 'orders', Item: { id: { S: 'o-1' } } } }],
        }),
      );
    const reply = (codes: string[]) =>
      fixture.reply({
        status: 400,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
          message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
          CancellationReasons: codes.map((Code) => ({ Code })),
        },
      });
    reply(['None', 'ConditionalCheckFailed']);
    expect(classesOf(await rejection(transact))).toEqual([
      'STALE_STATE',
      'STALE_STATE',
      'PRECONDITION_FAILED',
    ]);
    reply(['TransactionConflict', 'None']);
    expect(classesOf(await rejection(transact))).toEqual([
      'TRANSIENT',
      'TRANSIENT',
      'TRANSACTION_ROLLBACK',
    ]);
  });

  it('a refused connection is TRANSIENT even for a write', async () => {
    const client = new DynamoDBClient({
      region: 'us-east-1',
      credentials,
      maxAttempts: 1,
      endpoint: `http://127.0.0.1:${await closedPort()}`,
    });
    const error = await rejection(() => client.send(putItem()));
    client.destroy();
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });

  it('a request timeout after the request was sent is UNKNOWN_OUTCOME for a write', async () => {
    const client = new DynamoDBClient({
      region: 'us-east-1',
      credentials,
      maxAttempts: 1,
      endpoint: fixture.url,
      requestHandler: { requestTimeout: 50, throwOnRequestTimeout: true },
    });
    fixture.reply({ hang: true });
    const error = await rejection(() => client.send(putItem()));
    client.destroy();
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT']);
  });
});

describe('AWS SDK v3 S3: XML error codes', () => {
  it.each([
    [404, 'NoSuchKey', false, 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    [404, 'NoSuchBucket', false, 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    [403, 'AccessDenied', false, 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [403, 'InvalidAccessKeyId', false, 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    [403, 'SignatureDoesNotMatch', false, 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    [403, 'RequestTimeTooSkewed', false, 'TRANSIENT', 'TRANSIENT', 'CLOCK_SKEW'],
    [503, 'SlowDown', true, 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    [412, 'PreconditionFailed', true, 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
    [409, 'ConditionalRequestConflict', true, 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
    [409, 'BucketAlreadyOwnedByYou', true, 'STALE_STATE', 'STALE_STATE', 'ALREADY_EXISTS'],
    [400, 'RequestTimeout', true, 'TRANSIENT', 'TRANSIENT', 'TIMEOUT'],
    [400, 'EntityTooLarge', true, 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [500, 'InternalError', true, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
  ] as const)('%i %s', async (status, code, write, noHint, withHint, expected) => {
    const error = await s3Error(status, code, write);
    expect(error).toMatchObject({ name: code, $metadata: { httpStatusCode: status } });
    expect(classesOf(error)).toEqual([noHint, withHint, expected]);
  });
});

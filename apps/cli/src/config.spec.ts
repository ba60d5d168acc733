import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_API_URL, loadApiSettings } from './config';

describe('loadApiSettings (svc apply/diff/export, issue 42)', () => {
  let project: string;

  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'svc-api-settings-'));
  });

  afterEach(() => rmSync(project, { recursive: true, force: true }));

  it('should take the flags over the environment, and the environment over the defaults', () => {
    const env = { SVC_API_URL: 'https://env.example.com/api/v1', SVC_API_KEY: 'sjs_env' };
    expect(loadApiSettings({ apiUrl: 'http://flag:1/api/v1/', apiKey: 'sjs_flag' }, env, project)).toEqual({
      apiUrl: 'http://flag:1/api/v1',
      apiKey: 'sjs_flag',
    });
    expect(loadApiSettings({}, env, project)).toEqual({ apiUrl: 'https://env.example.com/api/v1', apiKey: 'sjs_env' });
    expect(loadApiSettings({}, { SVC_API_KEY: 'k' }, project).apiUrl).toBe(DEFAULT_API_URL);
  });

  it('should read the key npm start wrote into the data folder, SVC_DATA_DIR moving it', () => {
    mkdirSync(join(project, '.data'));
    writeFileSync(join(project, '.data', 'api-key'), 'sjs_from_file\n');
    expect(loadApiSettings({}, {}, project).apiKey).toBe('sjs_from_file');
    mkdirSync(join(project, 'elsewhere'));
    writeFileSync(join(project, 'elsewhere', 'api-key'), 'sjs_elsewhere');
    expect(loadApiSettings({}, { SVC_DATA_DIR: 'elsewhere' }, project).apiKey).toBe('sjs_elsewhere');
  });

  it('should name every place it looked when there is no key, and refuse a URL that is not http(s)', () => {
    expect(() => loadApiSettings({}, {}, project)).toThrow(
      `no API key: pass --api-key or set SVC_API_KEY (${project}/.data/api-key, written by npm start, does not exist either)`,
    );
    expect(() => loadApiSettings({ apiUrl: 'not a url' }, { SVC_API_KEY: 'k' }, project)).toThrow(
      'the API URL is not a URL: not a url',
    );
    expect(() => loadApiSettings({ apiUrl: 'ftp://h/api/v1' }, { SVC_API_KEY: 'k' }, project)).toThrow(
      'the API URL must be http or https: ftp://h/api/v1',
    );
  });
});

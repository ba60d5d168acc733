import { Inject, Injectable } from '@nestjs/common';
import { type AppConfig, ValidationFailedError } from '@svc/common';
import { checkUrlStatic, networkRulesOf, validateCustomHeaders } from '@svc/delivery';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { validationErrorsToFields } from '../common/validation';
import { APP_CONFIG } from '../config/config.module';
import { CommandConfigDto, SinkDto, WebhookConfigDto } from './dto/job-body.dto';

const RETRY_ON_WORDS = new Set(['1xx', '2xx', '3xx', '4xx', '5xx', 'network', 'timeout']);

/**
 * Validates a sink's kind-specific config at the boundary and returns it normalized with the
 * spec's defaults, or throws `400 validation_failed` naming `sink.config.*` fields.
 */
@Injectable()
export class SinkValidator {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  validate(sink: SinkDto): Record<string, unknown> {
    if (sink.kind === 'command') {
      return this.validateCommand(sink.config);
    }
    return this.validateWebhook(sink.config);
  }

  private validateWebhook(raw: Record<string, unknown>): Record<string, unknown> {
    const dto = plainToInstance(WebhookConfigDto, raw);
    const fields = validationErrorsToFields(
      validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }),
      'sink.config',
    );
    if (typeof dto.url === 'string' && !fields['sink.config.url']) {
      const check = checkUrlStatic(dto.url, networkRulesOf(this.config));
      if (!check.ok) {
        fields['sink.config.url'] = check.reason;
      }
    }
    if (dto.headers && !fields['sink.config.headers']) {
      const invalidValue = Object.entries(dto.headers).find(([, v]) => typeof v !== 'string');
      if (invalidValue) {
        fields[`sink.config.headers.${invalidValue[0]}`] = 'must be a string';
      } else {
        Object.assign(fields, validateCustomHeaders(dto.headers));
      }
    }
    if (dto.success_codes !== undefined && dto.success_codes !== '2xx') {
      const codes = dto.success_codes as unknown;
      const ok =
        Array.isArray(codes) &&
        codes.length > 0 &&
        codes.every((c) => Number.isInteger(c) && (c as number) >= 100 && (c as number) <= 599);
      if (!ok) {
        fields['sink.config.success_codes'] = 'must be "2xx" or a non-empty list of status codes (100-599)';
      }
    }
    if (dto.retry_on !== undefined && !fields['sink.config.retry_on']) {
      const bad = dto.retry_on.find(
        (entry) =>
          !(typeof entry === 'string' && RETRY_ON_WORDS.has(entry)) &&
          !(typeof entry === 'number' && Number.isInteger(entry) && entry >= 100 && entry <= 599),
      );
      if (bad !== undefined) {
        fields['sink.config.retry_on'] =
          `unknown entry ${JSON.stringify(bad)}; use status classes (5xx), codes, network, timeout`;
      }
    }
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(fields);
    }
    return {
      url: dto.url,
      method: dto.method ?? 'POST',
      headers: dto.headers ?? {},
      ...(dto.body !== undefined ? { body: dto.body } : {}),
      success_codes: dto.success_codes ?? '2xx',
      retry_on: dto.retry_on ?? ['5xx', 408, 429, 'network', 'timeout'],
      follow_redirects: dto.follow_redirects ?? false,
    };
  }

  private validateCommand(raw: Record<string, unknown>): Record<string, unknown> {
    if (!this.config.sinks.command.enabled) {
      throw new ValidationFailedError({ 'sink.kind': 'the command sink is disabled on this server' });
    }
    const dto = plainToInstance(CommandConfigDto, raw);
    const fields = validationErrorsToFields(
      validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }),
      'sink.config',
    );
    if (!fields['sink.config.argv'] && dto.argv.length === 0) {
      fields['sink.config.argv'] = 'must not be empty';
    }
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(fields);
    }
    return {
      argv: dto.argv,
      ...(dto.env ? { env: dto.env } : {}),
      ...(dto.cwd ? { cwd: dto.cwd } : {}),
      retry_on_exit_codes: dto.retry_on_exit_codes ?? [],
    };
  }
}

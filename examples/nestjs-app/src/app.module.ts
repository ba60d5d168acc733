import { type DynamicModule, Module } from '@nestjs/common';
import { ScheduledJobsModule } from '@svc/nestjs';
import { CounterStore } from './counter.store';
import { ReportsService, ReportsServiceNext } from './reports.service';

/**
 * The example app: the service's address, key and the receiver's public URL from the environment.
 * `release: 'next'` boots the release without the flaky job.
 */
@Module({})
export class AppModule {
  static register(options: { release: 'current' | 'next' }): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ScheduledJobsModule.forRoot({
          baseUrl: process.env.SVC_BASE_URL ?? 'http://127.0.0.1:8080',
          apiKey: process.env.SVC_API_KEY ?? '',
          owner: 'app:nestjs-example',
          receiver: {
            path: '/scheduled-jobs',
            publicUrl: process.env.RECEIVER_PUBLIC_URL ?? 'http://127.0.0.1:3000/scheduled-jobs',
          },
        }),
      ],
      providers: [CounterStore, options.release === 'next' ? ReportsServiceNext : ReportsService],
    };
  }
}

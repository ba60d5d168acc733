import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { DashboardAssets } from './dashboard-assets';
import { DashboardController } from './dashboard.controller';
import { registerDashboardRoutes } from './dashboard.routes';

/** The dashboard at `/`, served by the API process from the build's dist/dashboard. */
@Module({ controllers: [DashboardController] })
export class DashboardModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (fastify && typeof fastify.get === 'function') {
      registerDashboardRoutes(fastify, DashboardAssets.load());
    }
  }
}

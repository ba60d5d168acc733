import { Controller, Get, Post } from '@nestjs/common';
import { AppModule } from '../app.module';
import { AnyKey, Public, Scopes } from './auth.decorators';
import { routesOfController, routesOfModule } from './route-table';

describe('route table', () => {
  describe('every route of the API', () => {
    const routes = routesOfModule(AppModule.forRoot());

    it('should find the API routes by walking the module metadata', () => {
      expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
        expect.arrayContaining([
          'GET /api/v1/jobs',
          'POST /api/v1/jobs/:id/trigger',
          'GET /api/v1/runs/:id',
          'POST /api/v1/runs/:id/retry',
        ]),
      );
    });

    it('should route sink tests and signing-secret rotation under jobs:write (decisions.md → Scopes)', () => {
      const issue9 = ['/api/v1/jobs/test', '/api/v1/jobs/:id/test', '/api/v1/jobs/:id/rotate-signing-secret'];
      expect(
        issue9.map((path) => {
          const route = routes.find((r) => r.method === 'POST' && r.path === path);
          return [path, route?.public, route?.requirement];
        }),
      ).toEqual(issue9.map((path) => [path, false, ['jobs:write']]));
    });

    it('should route alert channels and rules to full-access keys, and the emailed verify link to nobody (decisions.md → Scopes)', () => {
      const alertRoutes = routes.filter((r) => r.path.startsWith('/api/v1/alert-'));
      expect(alertRoutes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
        [
          'DELETE /api/v1/alert-channels/:id',
          'DELETE /api/v1/alert-rules/:id',
          'GET /api/v1/alert-channels',
          'GET /api/v1/alert-channels/:id',
          'GET /api/v1/alert-channels/verify',
          'GET /api/v1/alert-rules',
          'GET /api/v1/alert-rules/:id',
          'PATCH /api/v1/alert-channels/:id',
          'PATCH /api/v1/alert-rules/:id',
          'POST /api/v1/alert-channels',
          'POST /api/v1/alert-channels/:id/test',
          'POST /api/v1/alert-channels/:id/verify',
          'POST /api/v1/alert-rules',
        ].sort(),
      );
      for (const route of alertRoutes) {
        const expected = route.path === '/api/v1/alert-channels/verify' ? [true, undefined] : [false, ['*']];
        expect([`${route.method} ${route.path}`, route.public, route.requirement]).toEqual([
          `${route.method} ${route.path}`,
          ...expected,
        ]);
      }
    });

    it('should let any valid key read the stats routes, like /me and /usage (decisions.md → Scopes)', () => {
      const statsRoutes = routes.filter((r) => r.path.startsWith('/api/v1/stats/'));
      expect(statsRoutes.map((r) => [`${r.method} ${r.path}`, r.public, r.requirement]).sort()).toEqual([
        ['GET /api/v1/stats/jobs/hourly', false, 'any_key'],
        ['GET /api/v1/stats/overview', false, 'any_key'],
      ]);
    });

    // Adding a route forces a decision (decisions.md → Scopes): @Public(), @Scopes(…) or @AnyKey().
    it('should declare a scope requirement on every authenticated route', () => {
      const undeclared = routes.filter((r) => !r.public && r.requirement === undefined);
      expect(undeclared.map((r) => `${r.method} ${r.path} (${r.handler})`)).toEqual([]);
    });

    it('should have no route both public and scoped', () => {
      const both = routes.filter((r) => r.public && r.requirement !== undefined);
      expect(both.map((r) => `${r.method} ${r.path} (${r.handler})`)).toEqual([]);
    });
  });

  describe('routesOfController', () => {
    @Scopes('jobs:read')
    @Controller('api/v1/things')
    class ThingsController {
      @Get()
      list() {}

      @Post(':id/poke')
      @Scopes('jobs:write')
      poke() {}

      @Get('mine')
      @AnyKey()
      mine() {}
    }

    @Public()
    @Controller()
    class OpenController {
      @Get('ping')
      ping() {}

      notARoute() {}
    }

    it('should compose paths and apply handler metadata over the class', () => {
      expect(routesOfController(ThingsController)).toEqual([
        {
          method: 'GET',
          path: '/api/v1/things',
          public: false,
          requirement: ['jobs:read'],
          handler: 'ThingsController.list',
          controller: ThingsController,
          methodName: 'list',
        },
        {
          method: 'POST',
          path: '/api/v1/things/:id/poke',
          public: false,
          requirement: ['jobs:write'],
          handler: 'ThingsController.poke',
          controller: ThingsController,
          methodName: 'poke',
        },
        {
          method: 'GET',
          path: '/api/v1/things/mine',
          public: false,
          requirement: 'any_key',
          handler: 'ThingsController.mine',
          controller: ThingsController,
          methodName: 'mine',
        },
      ]);
      expect(routesOfController(OpenController)).toEqual([
        {
          method: 'GET',
          path: '/ping',
          public: true,
          requirement: undefined,
          handler: 'OpenController.ping',
          controller: OpenController,
          methodName: 'ping',
        },
      ]);
    });
  });
});
